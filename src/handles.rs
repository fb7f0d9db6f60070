//! Native state reachable from JS only through handle objects.
//!
//! Two shapes, one rule. The ACP classes own their state directly, wrapped
//! in [`Tracked`]. The converters, called once per network read or event,
//! keep theirs in a [`HandleTable`]: a `#[napi]` handle object owns a slot,
//! and the hot entry points are free functions taking the slot number — on
//! this machine a free function call costs ~50 ns against ~400 ns for a class
//! method. Either way the JS object is an ordinary object (a WeakMap key,
//! WeakRef- and FinalizationRegistry-compatible); when V8 collects it, napi
//! runs the finalizer, the Rust value drops and the live count goes down.
//!
//! Threads. Node runs each JS environment (the main thread, every worker) on
//! a thread of its own, and napi calls an environment's functions and
//! finalizers only on that thread. So a handle table is per thread, without a
//! lock: conversions in different workers never wait for each other. A slot
//! number carries its table's tag (unique per thread), so a number taken to
//! another worker addresses nothing there: the call fails with
//! `INVALID_ARGUMENT`, it never reaches that worker's own converters.
//!
//! `liveHandles()` counts for the whole process, every thread included: the
//! native states (converters, card ledgers, trackers, id tables) whose handle
//! objects have not been collected and whose worker has not exited.
//!
//! The WebAssembly build (wasm32-wasip1-threads) differs in both: napi's
//! loader (toolcall-stream.wasi.cjs) instantiates the module once per JS
//! thread, each instance with memory of its own, so a worker's converters
//! are out of reach of every other thread's code, `liveHandles()` counts
//! the calling thread's states only, and the statics here start afresh in
//! each instance. A table's tag is therefore drawn at random there
//! ([`first_tag`]), so that a number taken to another worker still addresses
//! nothing there but with a chance of 2^-29 per pair of tables.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use std::thread::LocalKey;

use napi_derive::napi;

static LIVE: AtomicI64 = AtomicI64::new(0);

pub struct Tracked<T>(T);

impl<T> Tracked<T> {
    pub fn new(value: T) -> Self {
        LIVE.fetch_add(1, Ordering::Relaxed);
        Tracked(value)
    }
}

impl<T> Drop for Tracked<T> {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
}

impl<T> Deref for Tracked<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Tracked<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// The number of native states alive in this process, on every thread
/// (converters, card ledgers, trackers, id tables), whose handle objects have
/// not been collected and whose worker has not exited.
#[napi]
pub fn live_handles() -> i64 {
    LIVE.load(Ordering::Relaxed)
}

/// A slot number is `tag * 2^INDEX_BITS + index`: exact in a JS number.
const INDEX_BITS: u32 = 24;
const MAX_TAG: u32 = (1 << (53 - INDEX_BITS)) - 1;

/// Table tags handed out so far (tags wrap after 2^29 threads).
static TAGS: AtomicU32 = AtomicU32::new(0);

/// Where this instance's tags start: 0 natively, where one counter serves
/// every thread of the process.
#[cfg(not(target_arch = "wasm32"))]
fn first_tag() -> u32 {
    0
}

/// Where this instance's tags start: at random on wasm32, where each thread
/// has an instance of its own and so a counter of its own (module docs).
/// std's hasher keys are the randomness at hand (WASI `random_get`).
#[cfg(target_arch = "wasm32")]
fn first_tag() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u8(0);
    (hasher.finish() % u64::from(MAX_TAG)) as u32
}

/// One thread's slots.
pub struct Slots<T> {
    /// 0 until the first insert.
    tag: u32,
    entries: Vec<Option<Tracked<T>>>,
    free: Vec<u32>,
}

impl<T> Slots<T> {
    pub const fn new() -> Self {
        Slots {
            tag: 0,
            entries: Vec::new(),
            free: Vec::new(),
        }
    }

    fn index(&self, slot: f64) -> Option<usize> {
        // An integer below 2^53, else no slot (`as` saturates, NaN gives 0).
        let n = slot as u64;
        if n as f64 != slot || self.tag == 0 || n >> INDEX_BITS != u64::from(self.tag) {
            return None;
        }
        Some((n & ((1 << INDEX_BITS) - 1)) as usize)
    }
}

/// Slots of native state addressed by number, one table per thread. A slot
/// is freed only by the drop of the handle object that owns it, so a number
/// in JS is valid for as long as the handle object next to it is alive.
pub struct HandleTable<T: 'static>(&'static LocalKey<RefCell<Slots<T>>>);

impl<T: 'static> HandleTable<T> {
    pub const fn new(slots: &'static LocalKey<RefCell<Slots<T>>>) -> Self {
        HandleTable(slots)
    }

    /// The new slot's number; `None` when this thread has 2^24 live slots.
    pub fn insert(&self, value: T) -> Option<f64> {
        self.0
            .try_with(|slots| {
                let mut slots = slots.try_borrow_mut().ok()?;
                if slots.tag == 0 {
                    slots.tag = TAGS
                        .fetch_add(1, Ordering::Relaxed)
                        .wrapping_add(first_tag())
                        % MAX_TAG
                        + 1;
                }
                let value = Some(Tracked::new(value));
                let index = match slots.free.pop() {
                    Some(i) => {
                        slots.entries[i as usize] = value;
                        i
                    }
                    None if slots.entries.len() < 1 << INDEX_BITS => {
                        slots.entries.push(value);
                        (slots.entries.len() - 1) as u32
                    }
                    None => return None,
                };
                Some(f64::from(slots.tag) * f64::from(1u32 << INDEX_BITS) + f64::from(index))
            })
            .ok()
            .flatten()
    }

    pub fn remove(&self, slot: f64) {
        // After the thread's table is gone (thread exit) there is nothing
        // left to free; the value drops outside the borrow.
        let taken = self
            .0
            .try_with(|slots| {
                let mut slots = slots.try_borrow_mut().ok()?;
                let i = slots.index(slot)?;
                let taken = slots.entries.get_mut(i).and_then(Option::take);
                if taken.is_some() {
                    slots.free.push(i as u32);
                }
                taken
            })
            .ok()
            .flatten();
        drop(taken);
    }

    /// Runs `f` on the slot's value; `None` for a slot that is not live on
    /// this thread.
    pub fn with<R>(&self, slot: f64, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        self.0
            .try_with(|slots| {
                let mut slots = slots.try_borrow_mut().ok()?;
                let i = slots.index(slot)?;
                slots
                    .entries
                    .get_mut(i)
                    .and_then(Option::as_mut)
                    .map(|v| f(v))
            })
            .ok()
            .flatten()
    }
}
