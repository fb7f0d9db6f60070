//! The clock of the chunks: `createTime` is `String(Date.now())` in the
//! reference (docs/behaviour.md §1), read once per conversion call
//! ([`CallClock`]) and shared by the chunks made in one millisecond.

use std::rc::Rc;

/// Milliseconds since the epoch as JS `String(Date.now())` shows them.
pub fn now_ms_string() -> String {
    now_ms().to_string()
}

/// [`now_ms_string`] as a shared string: the chunks made in one millisecond
/// share one allocation (the last one is kept per thread).
pub fn now_ms_shared() -> Rc<str> {
    thread_local! {
        static LAST: std::cell::RefCell<(u64, Option<Rc<str>>)> =
            const { std::cell::RefCell::new((0, None)) };
    }
    let now = now_ms();
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        match &last.1 {
            Some(s) if last.0 == now => s.clone(),
            _ => {
                let s: Rc<str> = now.to_string().into();
                *last = (now, Some(s.clone()));
                s
            }
        }
    })
}

/// Milliseconds since the epoch (`Date.now()`): within a [`CallClock`],
/// the clock as it was read first in that call.
pub fn now_ms() -> u64 {
    CALL_NOW.with(|call| match call.get() {
        CallNow::Outside => read_clock(),
        CallNow::Unread => {
            let now = read_clock();
            call.set(CallNow::Read(now));
            now
        }
        CallNow::Read(now) => now,
    })
}

fn read_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[derive(Clone, Copy)]
enum CallNow {
    Outside,
    Unread,
    Read(u64),
}

thread_local! {
    static CALL_NOW: std::cell::Cell<CallNow> = const { std::cell::Cell::new(CallNow::Outside) };
}

/// One conversion call's clock: while it lives, [`now_ms`] reads the system
/// clock once (at its first use) and gives that millisecond to every chunk
/// the call makes. The reference stamps each chunk with `Date.now()` as it
/// converts it (`createTime`, docs/behaviour.md §1); the chunks of one read
/// are converted in one burst, so their stamps differ from the reference's
/// by at most the call's own duration, well under a millisecond. Reading the
/// clock per chunk (`clock_gettime`) was about 15% of the core's samples on
/// text-heavy streams.
pub struct CallClock {
    outer: CallNow,
}

impl CallClock {
    /// Starts the call's clock (unread until a chunk needs it).
    pub fn start() -> CallClock {
        CallClock {
            outer: CALL_NOW.with(|call| call.replace(CallNow::Unread)),
        }
    }
}

impl Drop for CallClock {
    fn drop(&mut self) {
        CALL_NOW.with(|call| call.set(self.outer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within a call the clock is read once, at its first use; outside,
    /// every read is fresh; a nested call keeps its own reading and the
    /// outer one's comes back after it.
    #[test]
    fn one_call_gives_every_chunk_the_same_millisecond() {
        let pause = || std::thread::sleep(std::time::Duration::from_millis(3));
        let before = now_ms();
        let outer = CallClock::start();
        pause();
        let first = now_ms();
        assert!(first >= before + 3, "read at first use, not at the start");
        pause();
        assert_eq!(now_ms(), first);
        {
            let _inner = CallClock::start();
            let inner = now_ms();
            assert!(inner > first);
            pause();
            assert_eq!(now_ms(), inner);
        }
        assert_eq!(now_ms(), first);
        assert_eq!(now_ms_shared().as_ref(), first.to_string());
        drop(outer);
        let after = now_ms();
        assert!(after >= first + 6);
        pause();
        assert!(now_ms() >= after + 3, "outside a call every read is fresh");
    }
}
