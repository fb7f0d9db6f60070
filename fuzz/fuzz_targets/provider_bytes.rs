//! Every row of `PROVIDERS` over raw SSE bytes, through the seam: never
//! panics, keeps the finished-state contract (a fatal error or `end()`
//! finishes the converter, and it refuses what comes after), and gives the
//! same responses and errors for any split of the bytes as for the whole
//! body. A corpus entry is `<row byte><options byte><2 split-seed
//! bytes><SSE body>`: the row (by name order, `toolcall_stream_fuzz::
//! providers`), then one of its releases' profiles and each boolean
//! setting its fixture folder lists (response parsing, preparations).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream_fuzz::providers::rows;
use toolcall_stream_fuzz::{pieces, run_bytes, seed_and_body};

fuzz_target!(|data: &[u8]| {
    let [row, choice, rest @ ..] = data else {
        return;
    };
    let rows = rows();
    let row = &rows[usize::from(*row) % rows.len()];
    let (seed, body) = seed_and_body(rest);
    let options = row.options(*choice);
    let converter = || {
        row.provider
            .stream(&options)
            .expect("the fixture folder's profiles and settings are the provider's")
    };
    let whole = run_bytes(&mut *converter(), &[body]);
    let split = run_bytes(&mut *converter(), &pieces(seed, body));
    assert_eq!(whole, split, "{}", row.provider.name);
});
