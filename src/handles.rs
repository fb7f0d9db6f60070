//! Native state reachable from JS only through handle objects.
//!
//! Every `#[napi]` class that owns core state wraps it in [`Tracked`]. The JS
//! object is an ordinary object (usable as a WeakMap key, through WeakRef,
//! with FinalizationRegistry); when V8 collects it, napi runs the finalizer,
//! the Rust value drops and the live count goes down. `liveHandles()` exposes
//! the count so tests can prove that state is freed after GC.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicI64, Ordering};

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

/// The number of native states alive (converters, card ledgers, trackers,
/// id tables) whose handle objects have not been collected yet.
#[napi]
pub fn live_handles() -> i64 {
    LIVE.load(Ordering::Relaxed)
}
