//! The C ABI entry points with arbitrary lengths, pointers into the middle of buffers and NULLs.
//! Whatever the arguments, no call may panic or touch memory outside what its lengths allow
//! (AddressSanitizer watches), a failed call leaves its out-parameters alone, and a successful
//! one answers what the core answers for the same membership.
#![no_main]

use std::ffi::CStr;
use std::ptr;

use arbitrary::{Result, Unstructured};
use hrwhash::policy::{SlotChange, SlotMode, SlotTable};
use hrwhash::{Placement, Seed, Weight};
use hrwhash_c::*;
use hrwhash_fuzz::{small_bytes, weight_input, NodeInput, WeightInput, MAX_K};
use libfuzzer_sys::fuzz_target;

/// A (pointer, length) span into `arena`, or NULL with a length that may be non-zero.
struct Span {
    ptr: *const u8,
    len: usize,
    /// NULL with a non-zero length: the call must refuse it.
    misuse: bool,
}

impl Span {
    fn bytes(&self) -> &[u8] {
        if self.ptr.is_null() {
            &[]
        } else {
            // SAFETY: built by `span` from a live sub-slice of the arena.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }
}

fn span(u: &mut Unstructured, arena: &[u8]) -> Result<Span> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => Span {
            ptr: ptr::null(),
            len: 0,
            misuse: false,
        },
        1 => {
            let len = u.int_in_range(1..=usize::MAX)?;
            Span {
                ptr: ptr::null(),
                len,
                misuse: true,
            }
        }
        _ => {
            let start = u.int_in_range(0..=arena.len())?;
            let len = u.int_in_range(0..=arena.len() - start)?;
            Span {
                ptr: arena[start..].as_ptr(),
                len,
                misuse: false,
            }
        }
    })
}

/// A caller-owned output array of `cap` entries, passed with a length of at most `cap`, or NULL.
fn out_len(u: &mut Unstructured, cap: usize) -> Result<(bool, usize)> {
    Ok(match u.int_in_range(0..=7u8)? {
        0 => (true, 0),
        1 => (true, u.int_in_range(1..=usize::MAX)?),
        _ => (false, u.int_in_range(0..=cap)?),
    })
}

/// An output pointer into `buf`, or NULL, with the length `out_len` chose for it.
fn out_buf(u: &mut Unstructured, buf: &mut [usize]) -> Result<(*mut usize, usize)> {
    let (null, len) = out_len(u, buf.len())?;
    Ok((if null { ptr::null_mut() } else { buf.as_mut_ptr() }, len))
}

/// Where a call may write its error details: a scratch struct, or NULL.
fn error_out(u: &mut Unstructured) -> Result<*mut hrw_error> {
    thread_local! {
        // SAFETY: zero is a valid bit pattern for hrw_error (integers, floats, a bool and an enum
        // whose 0 is NONE).
        static SCRATCH: std::cell::UnsafeCell<hrw_error> =
            std::cell::UnsafeCell::new(unsafe { std::mem::zeroed() });
    }
    Ok(if u.ratio(1, 2)? {
        ptr::null_mut()
    } else {
        SCRATCH.with(|s| s.get())
    })
}

fn status_ok(s: hrw_status) {
    assert_ne!(s, hrw_status::Panic, "a C ABI call panicked");
    // SAFETY: hrw_status_message accepts any number and returns a static C string.
    let msg = unsafe { CStr::from_ptr(hrw_status_message(s as u32)) };
    assert!(!msg.to_bytes().is_empty());
}

struct Built {
    handle: *mut hrw_placement,
    core: Placement,
}

fn build(u: &mut Unstructured, arena: &[u8]) -> Result<Option<Built>> {
    let count = u.int_in_range(0..=24usize)?;
    let mut nodes = Vec::with_capacity(count);
    let mut inputs = Vec::with_capacity(count);
    let mut misuse = false;
    for _ in 0..count {
        let id = span(u, arena)?;
        let domain = if u.ratio(1, 2)? {
            Some(span(u, arena)?)
        } else {
            None
        };
        misuse |= id.misuse || domain.as_ref().is_some_and(|d| d.misuse);
        nodes.push(hrw_node {
            id: id.ptr,
            id_len: id.len,
            domain: domain.as_ref().map_or(ptr::null(), |d| d.ptr),
            domain_len: domain.as_ref().map_or(0, |d| d.len),
        });
        // An empty domain given as NULL with length 0 means "no domain".
        let domain = domain
            .filter(|d| !d.ptr.is_null())
            .map(|d| d.bytes().to_vec());
        inputs.push(NodeInput {
            id: id.bytes().to_vec(),
            weight: WeightInput::Float(1.0),
            domain,
        });
    }
    let weights: Vec<f64> = (0..count + 2)
        .map(|_| match weight_input(u)? {
            WeightInput::Float(w) => Ok(w),
            WeightInput::Fixed(f) => Ok(f as f64 / 4_294_967_296.0),
        })
        .collect::<Result<_>>()?;
    let (weights_ptr, weights_len, weights_given) = match u.int_in_range(0..=3u8)? {
        0 => (ptr::null(), 0, false),
        1 => (weights.as_ptr(), u.int_in_range(0..=weights.len())?, true),
        _ => (weights.as_ptr(), count, true),
    };
    let seed = span(u, arena)?;
    let options = hrw_placement_options {
        seed: seed.ptr,
        seed_len: seed.len,
        weights: weights_ptr,
        weights_len,
    };
    let nodes_ptr = match u.int_in_range(0..=15u8)? {
        0 => ptr::null(),
        _ => nodes.as_ptr(),
    };
    misuse |= nodes_ptr.is_null() && count > 0;
    let options_ptr: *const hrw_placement_options = if u.ratio(1, 8)? {
        ptr::null()
    } else {
        &options
    };
    // A NULL options pointer means defaults: its seed span is never read.
    misuse |= seed.misuse && !options_ptr.is_null();

    let sentinel = 0x5a5a_5a5a_usize as *mut hrw_placement;
    let mut handle = sentinel;
    // SAFETY: zero is a valid bit pattern for hrw_error (integers, floats, a bool and an enum
    // whose 0 is NONE).
    let mut err: hrw_error = unsafe { std::mem::zeroed() };
    let error_ptr: *mut hrw_error = if u.ratio(1, 4)? {
        ptr::null_mut()
    } else {
        &mut err
    };
    // SAFETY: every pointer is NULL or valid for its stated length.
    let status =
        unsafe { hrw_placement_new(nodes_ptr, count, options_ptr, &mut handle, error_ptr) };
    status_ok(status);
    if !error_ptr.is_null() && status != hrw_status::Ok {
        assert_eq!(err.status, status);
    }
    if status != hrw_status::Ok {
        assert_eq!(handle, sentinel, "out-parameter written on failure");
    }

    // The same membership through the core API, when the call was well-formed.
    let weights_used = !options_ptr.is_null() && weights_given;
    if misuse {
        assert_ne!(
            status,
            hrw_status::Ok,
            "a NULL pointer with a length was accepted"
        );
        return Ok(None);
    }
    let seed_bytes = if options_ptr.is_null() || seed.ptr.is_null() {
        Seed::DEFAULT.to_bytes().to_vec()
    } else {
        seed.bytes().to_vec()
    };
    // The binding checks the weights list's length, then the seed (SPEC.md 7 comes next).
    let core = if weights_used && weights_len != count {
        Err(hrwhash::Error::LengthMismatch {
            expected: count,
            actual: weights_len,
        })
    } else if seed_bytes.len() != 16 {
        Err(hrwhash::Error::InvalidSeedLength {
            len: seed_bytes.len(),
        })
    } else {
        for (i, n) in inputs.iter_mut().enumerate() {
            if weights_used {
                n.weight = WeightInput::Float(weights[i]);
            }
        }
        hrwhash_fuzz::build(&seed_bytes, &inputs)
    };
    match core {
        Ok(core) => {
            assert_eq!(
                status,
                hrw_status::Ok,
                "the core builds what the C ABI refused"
            );
            Ok(Some(Built { handle, core }))
        }
        Err(e) => {
            assert_eq!(status, hrw_status::from(&e), "{e:?}");
            if !error_ptr.is_null() {
                details_match(&err, &e, &inputs);
            }
            Ok(None)
        }
    }
}

/// The details a failed build reports are those of the core's error; a weight error names the
/// first invalid weight's position.
fn details_match(err: &hrw_error, e: &hrwhash::Error, inputs: &[NodeInput]) {
    use hrwhash::Error as E;
    match *e {
        E::EmptyNodeId { index } => assert_eq!(err.index, index),
        E::DuplicateNodeId { index, first_index } => {
            assert_eq!((err.index, err.first_index), (index, first_index))
        }
        E::InvalidWeight { value } => {
            assert_eq!(err.value.to_bits(), value.to_bits());
            let first = inputs.iter().position(|n| n.weight.weight().is_err());
            assert_eq!(Some(err.index), first);
        }
        E::LengthMismatch { expected, actual } => {
            assert_eq!((err.expected, err.actual), (expected, actual))
        }
        E::InvalidSeedLength { len } => assert_eq!((err.expected, err.actual), (16, len)),
        _ => {}
    }
}

fn lookups(u: &mut Unstructured, arena: &[u8], b: &Built) -> Result<()> {
    let h = b.handle as *const hrw_placement;
    let p = &b.core;
    let n = p.selectable_len();
    for _ in 0..u.int_in_range(1..=4)? {
        let key = span(u, arena)?;
        let mut owner = usize::MAX;
        // SAFETY (every call below): pointers are NULL or valid for their stated lengths.
        let s = unsafe { hrw_placement_owner(h, key.ptr, key.len, &mut owner) };
        status_ok(s);
        if key.misuse {
            assert_eq!(s, hrw_status::NullParameter);
            assert_eq!(owner, usize::MAX);
        } else {
            assert_eq!(s, hrw_status::Ok);
            assert_eq!(owner, p.owner_index(key.bytes()));
        }

        let k = if u.ratio(1, 8)? {
            usize::MAX
        } else {
            u.int_in_range(0..=MAX_K)?
        };
        let mut buf = vec![usize::MAX; u.int_in_range(0..=MAX_K)?];
        let (out_ptr, len) = out_buf(u, &mut buf)?;
        let replicas = u.ratio(1, 2)?;
        let mut count = usize::MAX;
        let s = unsafe {
            if replicas {
                hrw_placement_replicas(h, key.ptr, key.len, k, out_ptr, len, &mut count)
            } else {
                hrw_placement_rank(h, key.ptr, key.len, k, out_ptr, len, &mut count)
            }
        };
        status_ok(s);
        let want = k.min(n);
        if s == hrw_status::Ok {
            assert!(!key.misuse && !(out_ptr.is_null() && len > 0) && len >= want);
            assert_eq!(count, want);
            let core: Vec<usize> = if replicas {
                p.replicas(key.bytes(), k)
                    .iter()
                    .map(|r| r.index())
                    .collect()
            } else {
                p.rank(key.bytes(), k).iter().map(|r| r.index()).collect()
            };
            assert_eq!(buf[..count], core[..]);
        } else {
            assert_eq!(count, usize::MAX, "out_count written on failure");
            assert!(key.misuse || (out_ptr.is_null() && len > 0) || len < want, "{s:?}");
        }
        assert!(
            buf[want.min(buf.len())..].iter().all(|&x| x == usize::MAX),
            "wrote past k"
        );

        // Half the time a member's id, so that the by-id lookup is exercised past its misses.
        let member: Vec<u8>;
        let id = if p.len() > 0 && u.ratio(1, 2)? {
            member = p.node(u.int_in_range(0..=p.len() - 1)?).unwrap().id().to_vec();
            Span {
                ptr: member.as_ptr(),
                len: member.len(),
                misuse: false,
            }
        } else {
            span(u, arena)?
        };
        let mut score = 7u64;
        let err = error_out(u)?;
        let s = unsafe {
            hrw_placement_score(h, key.ptr, key.len, id.ptr, id.len, &mut score, err)
        };
        status_ok(s);
        match p.score(key.bytes(), id.bytes()) {
            Ok(want) if !key.misuse && !id.misuse => {
                assert_eq!((s, score), (hrw_status::Ok, want))
            }
            _ => assert_eq!(score, 7),
        }
    }

    // Batch owners: concatenated keys and their lengths, sometimes summing right.
    let keys = span(u, arena)?;
    let mut lens: Vec<usize> = Vec::new();
    if u.ratio(3, 4)? {
        let mut left = keys.len;
        while left > 0 && lens.len() < 16 {
            let l = u.int_in_range(0..=left)?;
            lens.push(l);
            left -= l;
        }
        lens.push(left);
    } else {
        for _ in 0..u.int_in_range(0..=4)? {
            lens.push(u.arbitrary()?);
        }
    }
    let mut buf = vec![usize::MAX; u.int_in_range(0..=24)?];
    let (out_ptr, len) = out_buf(u, &mut buf)?;
    let lens_ptr = if lens.is_empty() && u.ratio(1, 2)? {
        ptr::null()
    } else {
        lens.as_ptr()
    };
    let s =
        unsafe { hrw_placement_owners(h, keys.ptr, keys.len, lens_ptr, lens.len(), out_ptr, len) };
    status_ok(s);
    if s == hrw_status::Ok {
        let mut rest = keys.bytes();
        for (i, &l) in lens.iter().enumerate() {
            let (key, tail) = rest.split_at(l);
            assert_eq!(buf[i], p.owner_index(key));
            rest = tail;
        }
    } else {
        assert!(
            buf.iter().all(|&x| x == usize::MAX),
            "owners wrote on failure"
        );
    }

    // Batch rankings: the same keys, rows of k slots.
    let k = if u.ratio(1, 8)? {
        usize::MAX - u.int_in_range(0..=1)?
    } else {
        u.int_in_range(0..=8)?
    };
    let mut buf = vec![usize::MAX; u.int_in_range(0..=96)?];
    let (out_ptr, len) = out_buf(u, &mut buf)?;
    let mut per_key = usize::MAX;
    let s = unsafe {
        hrw_placement_rank_many(
            h,
            keys.ptr,
            keys.len,
            lens_ptr,
            lens.len(),
            k,
            out_ptr,
            len,
            &mut per_key,
        )
    };
    status_ok(s);
    let sums = lens.iter().try_fold(0usize, |a, &l| a.checked_add(l)) == Some(keys.len);
    let want = if keys.misuse || (lens_ptr.is_null() && !lens.is_empty()) {
        None
    } else {
        Some(match lens.len().checked_mul(k) {
            None => hrw_status::ResultTooLarge,
            Some(_) if out_ptr.is_null() && len > 0 => hrw_status::NullParameter,
            Some(slots) if len < slots => hrw_status::BufferTooSmall,
            Some(_) if !sums => hrw_status::LengthMismatch,
            Some(_) => hrw_status::Ok,
        })
    };
    match want {
        Some(want) => assert_eq!(s, want),
        None => assert_ne!(s, hrw_status::Ok),
    }
    if s == hrw_status::Ok {
        assert_eq!(per_key, k.min(n));
        let mut rest = keys.bytes();
        for (i, &l) in lens.iter().enumerate() {
            let (key, tail) = rest.split_at(l);
            let row = &buf[i * k..i * k + k];
            let core: Vec<usize> = p.rank(key, k).iter().map(|r| r.index()).collect();
            assert_eq!(row[..per_key], core[..]);
            assert!(
                row[per_key..].iter().all(|&x| x == usize::MAX),
                "wrote past a row's ranking"
            );
            rest = tail;
        }
    } else {
        assert_eq!(per_key, usize::MAX, "out_per_key written on failure");
        assert!(
            buf.iter().all(|&x| x == usize::MAX),
            "rank_many wrote on failure"
        );
    }

    // Node access.
    let mut len_out = 0usize;
    assert_eq!(
        unsafe { hrw_placement_len(h, &mut len_out, ptr::null_mut()) },
        hrw_status::Ok
    );
    assert_eq!(len_out, p.len());
    let mut selectable = usize::MAX;
    assert_eq!(
        unsafe { hrw_placement_len(h, &mut len_out, &mut selectable) },
        hrw_status::Ok
    );
    assert_eq!((len_out, selectable), (p.len(), n));
    let index = if u.ratio(1, 2)? {
        u.int_in_range(0..=p.len())?
    } else {
        u.arbitrary()?
    };
    let mut node_out = hrw_node {
        id: ptr::null(),
        id_len: 0,
        domain: ptr::null(),
        domain_len: 7,
    };
    let mut weight = -1.0f64;
    let s = unsafe { hrw_placement_node(h, index, &mut node_out, &mut weight) };
    status_ok(s);
    match p.node(index) {
        Some(node) => {
            assert_eq!((s, weight), (hrw_status::Ok, node.weight().to_f64()));
            assert_eq!(
                unsafe { std::slice::from_raw_parts(node_out.id, node_out.id_len) },
                node.id()
            );
            match node.domain() {
                None => assert!(node_out.domain.is_null() && node_out.domain_len == 0),
                Some(d) => {
                    assert!(!node_out.domain.is_null());
                    assert_eq!(
                        unsafe { std::slice::from_raw_parts(node_out.domain, node_out.domain_len) },
                        d
                    );
                }
            }
        }
        None => {
            assert_eq!((s, weight), (hrw_status::IndexOutOfRange, -1.0));
            assert!(node_out.id.is_null() && node_out.domain_len == 7);
        }
    }
    let id = span(u, arena)?;
    let mut found = usize::MAX;
    let s = unsafe { hrw_placement_find(h, id.ptr, id.len, &mut found) };
    status_ok(s);
    match p.find(id.bytes()) {
        Some(node) if !id.misuse => assert_eq!((s, found), (hrw_status::Ok, node.index())),
        _ => assert_eq!(found, usize::MAX),
    }
    let mut seed = [0u8; 20];
    let seed_len = u.int_in_range(0..=20)?;
    let s = unsafe { hrw_placement_seed(h, seed.as_mut_ptr(), seed_len) };
    status_ok(s);
    if seed_len >= 16 {
        assert_eq!(s, hrw_status::Ok);
        assert_eq!(seed[..16], p.seed().to_bytes());
    } else {
        assert_eq!(s, hrw_status::BufferTooSmall);
        assert_eq!(seed, [0u8; 20]);
    }
    Ok(())
}

fn derived(u: &mut Unstructured, arena: &[u8], b: &Built) -> Result<()> {
    let h = b.handle as *const hrw_placement;
    let id = span(u, arena)?;
    let domain = if u.ratio(1, 2)? {
        Some(span(u, arena)?)
    } else {
        None
    };
    let node = hrw_node {
        id: id.ptr,
        id_len: id.len,
        domain: domain.as_ref().map_or(ptr::null(), |d| d.ptr),
        domain_len: domain.as_ref().map_or(0, |d| d.len),
    };
    let weight = match weight_input(u)? {
        WeightInput::Float(w) => w,
        WeightInput::Fixed(f) => f as f64,
    };
    let node_ptr: *const hrw_node = if u.ratio(1, 8)? { ptr::null() } else { &node };
    let misuse = id.misuse || domain.as_ref().is_some_and(|d| d.misuse);
    let keys: Vec<Span> = (0..3).map(|_| span(u, arena)).collect::<Result<_>>()?;
    let sentinel = 0x5a5a_5a5a_usize as *mut hrw_placement;

    let mut next = sentinel;
    // SAFETY (every call below): pointers are NULL or valid for their stated lengths.
    let s = unsafe { hrw_placement_with_node(h, node_ptr, weight, &mut next, error_out(u)?) };
    let want = if misuse || node_ptr.is_null() {
        None
    } else {
        let mut n = hrwhash::Node::new(id.bytes());
        if let Some(d) = domain.as_ref().filter(|d| !d.ptr.is_null()) {
            n = n.with_domain(d.bytes());
        }
        Some(Weight::new(weight).and_then(|w| b.core.with_node(n.with_weight(w))))
    };
    same_as_core(s, next, sentinel, want, &keys);

    let mut next = sentinel;
    let s = unsafe { hrw_placement_without_node(h, id.ptr, id.len, &mut next, error_out(u)?) };
    let want = (!id.misuse).then(|| b.core.without_node(id.bytes()));
    same_as_core(s, next, sentinel, want, &keys);

    let mut next = sentinel;
    let s =
        unsafe { hrw_placement_with_weight(h, id.ptr, id.len, weight, &mut next, error_out(u)?) };
    // The node is looked up before the weight is checked (as documented in the header).
    let want = (!id.misuse).then(|| match b.core.find(id.bytes()) {
        None => Err(hrwhash::Error::UnknownNode),
        Some(_) => Weight::new(weight).and_then(|w| b.core.with_weight(id.bytes(), w)),
    });
    same_as_core(s, next, sentinel, want, &keys);
    Ok(())
}

/// A derived handle against the core's answer for the same change (`None`: a NULL pointer with a
/// length, which must be refused).
fn same_as_core(
    s: hrw_status,
    next: *mut hrw_placement,
    sentinel: *mut hrw_placement,
    want: Option<std::result::Result<Placement, hrwhash::Error>>,
    keys: &[Span],
) {
    status_ok(s);
    let core = match want {
        None => {
            assert_ne!(
                s,
                hrw_status::Ok,
                "a NULL pointer with a length was accepted"
            );
            assert_eq!(next, sentinel, "out-parameter written on failure");
            return;
        }
        Some(Err(e)) => {
            assert_eq!(s, hrw_status::from(&e), "{e:?}");
            assert_eq!(next, sentinel, "out-parameter written on failure");
            return;
        }
        Some(Ok(core)) => core,
    };
    assert_eq!(s, hrw_status::Ok);
    let mut len = 0usize;
    // SAFETY: `next` is a live handle from a successful call; ids stay valid while it lives.
    unsafe {
        assert_eq!(hrw_placement_len(next, &mut len, ptr::null_mut()), hrw_status::Ok);
        assert_eq!(len, core.len());
        for (i, node) in core.nodes().enumerate() {
            assert_eq!(std::slice::from_raw_parts(node_id(next, i).0, node_id(next, i).1), node.id());
        }
        for key in keys.iter().filter(|k| !k.misuse) {
            let mut owner = usize::MAX;
            assert_eq!(
                hrw_placement_owner(next, key.ptr, key.len, &mut owner),
                hrw_status::Ok
            );
            assert_eq!(owner, core.owner_index(key.bytes()));
        }
        hrw_placement_free(next);
    }
}

/// The core table a slot-table handle should hold, or `None` when a call refused it.
type CoreTable = std::result::Result<SlotTable, hrwhash::Error>;

/// The id of node `i` of a live placement handle (pointer, length), through `hrw_placement_node`.
fn node_id(p: *const hrw_placement, i: usize) -> (*const u8, usize) {
    let mut n = hrw_node {
        id: ptr::null(),
        id_len: 0,
        domain: ptr::null(),
        domain_len: 0,
    };
    let mut w = 0.0f64;
    // SAFETY: `p` is a live handle; both out-params are writable.
    assert_eq!(
        unsafe { hrw_placement_node(p, i, &mut n, &mut w) },
        hrw_status::Ok
    );
    (n.id, n.id_len)
}

/// A slot-table handle's figures (`hrw_slot_table_summary`).
fn figures(t: *const hrw_slot_table) -> hrw_slot_table_figures {
    let mut f = std::mem::MaybeUninit::<hrw_slot_table_figures>::uninit();
    // SAFETY: `t` is a live handle; `f` is writable and written on success.
    unsafe {
        assert_eq!(hrw_slot_table_summary(t, f.as_mut_ptr()), hrw_status::Ok);
        f.assume_init()
    }
}

/// What a caller reads of a slot-table handle: its assignments, change count and fingerprint.
fn table_state(t: *const hrw_slot_table) -> (Vec<u32>, usize, [u8; HRW_TABLE_FINGERPRINT_LEN]) {
    let mut fp = [0u8; HRW_TABLE_FINGERPRINT_LEN];
    // SAFETY: `t` is a live handle; every buffer is as long as its stated length.
    unsafe {
        let f = figures(t);
        let mut owners = vec![0u32; f.slots as usize];
        assert_eq!(
            hrw_slot_table_assignments(t, owners.as_mut_ptr(), owners.len()),
            hrw_status::Ok
        );
        assert_eq!(
            hrw_slot_table_fingerprint(t, fp.as_mut_ptr(), fp.len()),
            hrw_status::Ok
        );
        (owners, f.change_count, fp)
    }
}

/// The id of each slot's owner.
fn owner_ids(t: *const hrw_slot_table) -> Vec<Vec<u8>> {
    let members = figures(t).placement;
    // SAFETY: `t` is a live handle; the ids stay valid while it lives.
    unsafe {
        table_state(t)
            .0
            .iter()
            .map(|&i| {
                let (p, l) = node_id(members, i as usize);
                std::slice::from_raw_parts(p, l).to_vec()
            })
            .collect()
    }
}

/// A slot-table handle against the core table it should hold.
fn same_table(t: *const hrw_slot_table, core: &SlotTable, keys: &[Span]) {
    let (owners, changes, fp) = table_state(t);
    assert_eq!(owners, core.assignments());
    assert_eq!(changes, core.changes().len());
    assert_eq!(fp, core.fingerprint().to_bytes());
    let f = figures(t);
    let mut counts = vec![0u32; core.placement().len()];
    // SAFETY: `t` is a live handle; every buffer is as long as its stated length.
    unsafe {
        assert_eq!(
            hrw_slot_table_slot_counts(t, counts.as_mut_ptr(), counts.len()),
            hrw_status::Ok
        );
        let mut len = 0usize;
        assert_eq!(hrw_placement_len(f.initial, &mut len, ptr::null_mut()), hrw_status::Ok);
        assert_eq!(len, core.initial().len());
        let n = core.placement().len();
        let mut caps_out = vec![5u32; n];
        let s = hrw_slot_table_capacities(t, caps_out.as_mut_ptr(), caps_out.len());
        match core.capacities() {
            Some(caps) => assert_eq!((s, &caps_out[..]), (hrw_status::Ok, &caps[..])),
            None => assert_eq!((s, &caps_out[..]), (hrw_status::NotOffered, &vec![5; n][..])),
        }
        for key in keys.iter().filter(|k| !k.misuse) {
            let (mut owner, mut slot) = (usize::MAX, u32::MAX);
            assert_eq!(
                hrw_slot_table_owner(t, key.ptr, key.len, &mut owner, &mut slot),
                hrw_status::Ok
            );
            assert_eq!(owner, core.owner_index(key.bytes()));
            assert_eq!(slot, core.slot(key.bytes()));
        }
    }
    assert_eq!(
        (f.has_bound, f.overload_ppm),
        (
            core.overload_ppm().is_some(),
            core.overload_ppm().unwrap_or(0)
        )
    );
    let mode = match core.mode() {
        SlotMode::Levelled => hrw_slot_mode::Levelled,
        SlotMode::Ranked { .. } => hrw_slot_mode::Ranked,
    };
    assert_eq!((f.mode, f.slots, f.epoch), (mode, core.slots(), core.epoch()));
    assert_eq!(counts, core.slot_counts());
}

/// Slot tables over the built membership: construction, changes as copies and in place (a
/// refused change leaves the table as it was), and the document written and read back.
fn slot_tables(u: &mut Unstructured, arena: &[u8], b: &Built) -> Result<()> {
    let h = b.handle as *const hrw_placement;
    // Small tables, and counts past the limit: a table near 2^24 slots costs seconds per change.
    let slots: u64 = match u.int_in_range(0..=15u8)? {
        0 => u.int_in_range((1 << 24) + 1..=u64::MAX)?,
        _ => u.int_in_range(0..=300)?,
    };
    let ranked = u.ratio(1, 2)?;
    let ppm: Option<u32> = if u.ratio(1, 2)? {
        Some(u.arbitrary()?)
    } else {
        None
    };
    let keys: Vec<Span> = (0..2).map(|_| span(u, arena)).collect::<Result<_>>()?;
    let sentinel = 0x5a5a_5a5a_usize as *mut hrw_slot_table;
    let mut t = sentinel;
    // SAFETY (every call below): pointers are NULL or valid for their stated lengths; handles
    // are live until freed, once.
    let s = unsafe {
        if ranked {
            let options = hrw_slot_table_options {
                mode: hrw_slot_mode::Ranked as u32,
                has_bound: ppm.is_some(),
                overload_ppm: ppm.unwrap_or_else(|| u.arbitrary().unwrap_or(0)),
            };
            hrw_slot_table_new(h, slots, &options, &mut t, error_out(u)?)
        } else if u.ratio(1, 2)? {
            hrw_slot_table_new(h, slots, ptr::null(), &mut t, error_out(u)?)
        } else {
            let options = hrw_slot_table_options {
                mode: hrw_slot_mode::Levelled as u32,
                has_bound: false,
                overload_ppm: u.arbitrary()?,
            };
            hrw_slot_table_new(h, slots, &options, &mut t, error_out(u)?)
        }
    };
    status_ok(s);
    let want: CoreTable = if ranked {
        SlotTable::ranked(&b.core, slots, ppm)
    } else {
        SlotTable::new(&b.core, slots)
    };
    let mut core = match want {
        Err(e) => {
            assert_eq!((s, t), (hrw_status::from(&e), sentinel), "{e:?}");
            return Ok(());
        }
        Ok(core) => core,
    };
    assert_eq!(s, hrw_status::Ok);
    same_table(t, &core, &keys);
    let r = (|| {
        for _ in 0..u.int_in_range(1..=4)? {
            let id = span(u, arena)?;
            let weight = match weight_input(u)? {
                WeightInput::Float(w) => w,
                WeightInput::Fixed(f) => f as f64,
            };
            let node = hrw_node {
                id: id.ptr,
                id_len: id.len,
                domain: ptr::null(),
                domain_len: 0,
            };
            // Op 3 stands for any number that names no op.
            let op = u.int_in_range(0..=3u8)?;
            let op_number: u32 = match op {
                3 => u.int_in_range(3..=u32::MAX)?,
                op => u32::from(op),
            };
            let in_place = u.ratio(1, 2)?;
            // The change the call asks for, as the binding checks it: NULL pointers with a
            // length, then (for a weight) the node, then the weight; the rest is the core's.
            let change: Option<std::result::Result<SlotChange, hrwhash::Error>> = if id.misuse
                || op == 3
            {
                None
            } else {
                Some(match op {
                    0 => Weight::new(weight)
                        .map(|w| SlotChange::Add(hrwhash::Node::new(id.bytes()).with_weight(w))),
                    1 => Ok(SlotChange::Remove(id.bytes().to_vec())),
                    _ => match core.placement().find(id.bytes()) {
                        None => Err(hrwhash::Error::UnknownNode),
                        Some(_) => {
                            Weight::new(weight).map(|w| SlotChange::Weight(id.bytes().to_vec(), w))
                        }
                    },
                })
            };
            let before = table_state(t);
            let mut next = sentinel;
            let s = unsafe {
                let change = hrw_slot_change {
                    op: op_number,
                    node,
                    weight,
                };
                if in_place {
                    hrw_slot_table_push(t, &change, error_out(u)?)
                } else {
                    hrw_slot_table_with_change(t, &change, &mut next, error_out(u)?)
                }
            };
            status_ok(s);
            let want = change.map(|c| c.and_then(|c| core.with_change(c)));
            match want {
                Some(Ok(changed)) => {
                    assert_eq!(s, hrw_status::Ok);
                    if !in_place {
                        // The copy is the new table; the old handle is as it was.
                        assert_eq!(table_state(t), before);
                        unsafe { hrw_slot_table_free(t) };
                        t = next;
                    }
                    core = changed;
                    same_table(t, &core, &keys);
                }
                refused => {
                    if let Some(Err(e)) = &refused {
                        assert_eq!(s, hrw_status::from(e), "{e:?}");
                    } else {
                        assert_eq!(s, hrw_status::NullParameter);
                    }
                    assert_eq!(next, sentinel, "out-parameter written on failure");
                    assert_eq!(table_state(t), before, "a refused change changed the table");
                }
            }
        }
        // The document, written and read back, is the same table.
        let text = core.to_json();
        let mut buf = vec![0u8; text.len()];
        let (mut written, mut again) = (0usize, sentinel);
        unsafe {
            assert_eq!(
                hrw_slot_table_to_json(t, buf.as_mut_ptr(), buf.len(), &mut written, error_out(u)?),
                hrw_status::Ok
            );
            assert_eq!(&buf[..written], text.as_bytes());
            let seed = b.core.seed().to_bytes();
            assert_eq!(
                hrw_slot_table_from_json(
                    buf.as_ptr(),
                    written,
                    seed.as_ptr(),
                    seed.len(),
                    &mut again,
                    error_out(u)?
                ),
                hrw_status::Ok
            );
            // The document lists the first membership in id order, so node indices may differ;
            // the owners' ids and the fingerprint do not.
            let (a, b) = (table_state(again), table_state(t));
            assert_eq!((a.1, a.2), (b.1, b.2));
            assert_eq!(owner_ids(again), owner_ids(t));
            hrw_slot_table_free(again);
        }
        // Any bytes as a document: the core's answer.
        let doc = span(u, arena)?;
        let mut loaded = sentinel;
        let s = unsafe {
            hrw_slot_table_from_json(doc.ptr, doc.len, ptr::null(), 0, &mut loaded, error_out(u)?)
        };
        status_ok(s);
        if doc.misuse {
            assert_eq!((s, loaded), (hrw_status::NullParameter, sentinel));
        } else {
            match SlotTable::from_json_bytes(doc.bytes(), Seed::DEFAULT) {
                Ok(want) => {
                    assert_eq!(s, hrw_status::Ok);
                    same_table(loaded, &want, &keys);
                    unsafe { hrw_slot_table_free(loaded) };
                }
                Err(e) => assert_eq!((s, loaded), (hrw_status::from(&e), sentinel)),
            }
        }
        Ok(())
    })();
    unsafe { hrw_slot_table_free(t) };
    r
}

fn free_functions(u: &mut Unstructured, arena: &[u8]) -> Result<()> {
    let w = f64::from_bits(u.arbitrary()?);
    let mut fixed = 3u64;
    // SAFETY (every call below): pointers are NULL or valid for their stated lengths.
    let s = unsafe { hrw_weight_to_fixed(w, &mut fixed, error_out(u)?) };
    status_ok(s);
    match Weight::new(w) {
        Ok(want) => assert_eq!((s, fixed), (hrw_status::Ok, want.to_fixed())),
        Err(_) => assert_eq!((s, fixed), (hrw_status::InvalidWeight, 3)),
    }
    let s = unsafe { hrw_weight_to_fixed(1.0, ptr::null_mut(), error_out(u)?) };
    assert_eq!(s, hrw_status::NullParameter);
    let seed = span(u, arena)?;
    let data = span(u, arena)?;
    for node in [false, true] {
        let mut digest = 5u64;
        let digest_fn = if node {
            hrw_node_digest
        } else {
            hrw_key_digest
        };
        let s = unsafe {
            digest_fn(seed.ptr, seed.len, data.ptr, data.len, &mut digest, error_out(u)?)
        };
        status_ok(s);
        let want_seed = if seed.ptr.is_null() && seed.len == 0 {
            Some(Seed::DEFAULT)
        } else if seed.misuse {
            None
        } else {
            Seed::from_slice(seed.bytes()).ok()
        };
        match want_seed {
            Some(sd) if !data.misuse => {
                let want = if node {
                    hrwhash::v1::node_digest(&sd, data.bytes())
                } else {
                    hrwhash::v1::key_digest(&sd, data.bytes())
                };
                assert_eq!((s, digest), (hrw_status::Ok, want));
            }
            _ => assert_eq!(digest, 5),
        }
    }
    let score: u64 = u.arbitrary()?;
    let mut d = 0u64;
    assert_eq!(unsafe { hrw_draw(score, &mut d) }, hrw_status::Ok);
    assert_eq!(d, hrwhash::v1::draw(score));
    let code: u32 = u.arbitrary()?;
    // SAFETY: any number is accepted.
    let msg = unsafe { CStr::from_ptr(hrw_status_message(code)) };
    assert!(!msg.to_bytes().is_empty());
    unsafe { hrw_placement_free(ptr::null_mut()) };
    Ok(())
}

fn run(u: &mut Unstructured) -> Result<()> {
    let arena = small_bytes(u, 96)?;
    free_functions(u, &arena)?;
    if let Some(b) = build(u, &arena)? {
        let r = lookups(u, &arena, &b)
            .and_then(|()| derived(u, &arena, &b))
            .and_then(|()| slot_tables(u, &arena, &b));
        // SAFETY: a live handle, freed once, whatever the checks above returned.
        unsafe { hrw_placement_free(b.handle) };
        r?;
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
