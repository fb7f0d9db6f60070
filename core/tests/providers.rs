//! Every row of `PROVIDERS` against the oracle's outputs in its fixture
//! folder (`__test__/fixtures/providers/<name>/`), through the seam only:
//! for every stream and every release the folder lists, the SSE body whole
//! and split in two at every byte boundary (512 splits spread over a body
//! past 4 KB), and, for a stream of the provider's objects only, each object
//! on its own, give the release's lines under one comparison rule
//! (`providers_common`). A row without a folder fails here, naming the
//! folder to add; so does a folder no row names.

mod common;
mod providers_common;

use providers_common::{
    assert_matches, canonical, fixture, fixtures, providers_dir, run_bytes, run_objects,
};
use toolcall_stream_core::convert::path_counters;
use toolcall_stream_core::convert::provider::PROVIDERS;

#[test]
fn every_provider_has_a_fixture_folder_and_every_folder_a_provider() {
    let missing: Vec<String> = PROVIDERS.iter().filter_map(|p| fixture(p).err()).collect();
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    for entry in std::fs::read_dir(providers_dir()).unwrap() {
        let entry = entry.unwrap();
        if !entry.file_type().unwrap().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            PROVIDERS.iter().any(|p| p.name == name),
            "__test__/fixtures/providers/{name}/ names no row of PROVIDERS"
        );
    }
}

#[test]
fn every_stream_matches_each_release_as_bytes_whole_and_split_anywhere() {
    for f in fixtures() {
        let name = f.provider.name;
        assert!(
            f.streams.len() >= f.min_streams,
            "{name}: {} streams, the manifest says at least {}",
            f.streams.len(),
            f.min_streams
        );
        for s in &f.streams {
            for r in &f.releases {
                let want = f.expected(s, r);
                let how = format!("{name} {} under {}", s.name, r.profile.as_str());
                let bytes = &s.body;
                let whole = run_bytes(&mut *f.converter(r.profile), &[bytes], s.ending);
                assert_matches(&whole, &want, &f.recorded, &format!("{how}, whole"));
                let whole = canonical(&whole, &f.recorded);
                // Every boundary of a small body, 512 spread over a large one.
                let step = if bytes.len() > 4096 {
                    bytes.len() / 512
                } else {
                    1
                };
                for at in (0..=bytes.len()).step_by(step) {
                    let pieces: [&[u8]; 2] = [&bytes[..at], &bytes[at..]];
                    let split = run_bytes(&mut *f.converter(r.profile), &pieces, s.ending);
                    assert_eq!(
                        canonical(&split, &f.recorded),
                        whole,
                        "{how}, split at {at}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_stream_of_objects_matches_each_release_one_object_at_a_time() {
    for f in fixtures() {
        let mut runs = 0;
        for s in f.streams.iter().filter(|s| s.plain) {
            for r in &f.releases {
                let want = f.expected(s, r);
                let got = run_objects(&mut *f.converter(r.profile), &s.objects, s.ending);
                let how = format!(
                    "{} {} under {}, objects",
                    f.provider.name,
                    s.name,
                    r.profile.as_str()
                );
                assert_matches(&got, &want, &f.recorded, &how);
                runs += 1;
            }
        }
        assert!(runs > 0, "{}: no stream of objects only", f.provider.name);
    }
}

/// Each conversion path a folder names (`paths`: the byte path, the
/// template path, the field path) is taken over its whole bodies at least
/// as often as it says, and is only a shorter way: switched off, it is
/// never taken, and every body under every release gives the same output.
#[test]
fn every_path_a_folder_names_is_taken_and_changes_no_output() {
    for f in fixtures() {
        let name = f.provider.name;
        let outputs = || -> Vec<Vec<serde_json::Value>> {
            let mut all = Vec::new();
            for s in &f.streams {
                for r in &f.releases {
                    let got = run_bytes(&mut *f.converter(r.profile), &[&s.body], s.ending);
                    all.push(canonical(&got, &f.recorded));
                }
            }
            all
        };
        for &(path, min) in &f.paths {
            path_counters::reset();
            let with = outputs();
            let taken = path_counters::count(path);
            assert!(
                taken >= min,
                "{name}: the {path:?} path was taken {taken} times, corpus.json says at least {min}"
            );
            path_counters::set_disabled(path, true);
            path_counters::reset();
            let without = outputs();
            let taken_off = path_counters::count(path);
            path_counters::set_disabled(path, false);
            assert_eq!(taken_off, 0, "{name}: {path:?} is off");
            assert!(with == without, "{name}: {path:?} changes an output");
        }
    }
}
