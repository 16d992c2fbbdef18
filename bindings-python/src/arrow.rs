//! Batches at DataFrame scale. Keys come from any Arrow array, chunked array or stream (the Arrow
//! PyCapsule interface: pyarrow, Polars, pandas, DuckDB, ...) or a NumPy array of `bytes_`, `str_`
//! or objects; answers go out as Arrow arrays, so no Python object is made per key.
//!
//! Null keys: the Arrow answers carry a null where the key is null; the list answers of
//! `owners`/`rank_many` have no place for one and raise `InvalidArgumentError` naming the first.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{
    Array, ArrayRef, BinaryArray, DictionaryArray, FixedSizeListArray, OffsetSizeTrait,
    StringArray, UInt32Array,
};
use arrow_buffer::{NullBuffer, NullBufferBuilder, ScalarBuffer};
use arrow_schema::{DataType, Field};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyIterator, PyString};
use pyo3_arrow::PyArray;

use hrwhash::Error;

use crate::args::{count_arg, id_bytes, At};
use crate::error::invalid_argument;
use crate::{error, Placement};

/// How the items of a fixed-width NumPy array of keys are laid out in its bytes.
#[derive(Clone, Copy)]
pub(crate) struct NumpyItems {
    itemsize: usize,
    /// `str_` (UCS-4) rather than `bytes_`.
    unicode: bool,
    big_endian: bool,
}

impl NumpyItems {
    /// The number of items in `data`.
    fn count(self, data: &[u8]) -> usize {
        data.len().checked_div(self.itemsize).unwrap_or(0)
    }
}

/// Keys per GIL-free section when keys are read from Python objects.
const OBJECT_CHUNK: usize = 4096;

/// What a batch call was given, read without a Python object per key where the input allows.
pub(crate) enum Keys<'py> {
    /// Arrow chunks (string, large_string, string_view, binary, large_binary, binary_view).
    Arrow(Box<dyn Iterator<Item = PyResult<ArrayRef>> + 'py>),
    /// A 1-d NumPy array of fixed-width `bytes_` (`S`) or `str_` (`U`) items, copied out once.
    NumpyFixed {
        data: Bound<'py, PyBytes>,
        items: NumpyItems,
    },
    /// Anything else: an iterable of str/bytes-like objects (NumPy object arrays included).
    Objects(Bound<'py, PyAny>),
}

/// `InvalidArgumentError` (a `TypeError`) for keys of a kind hrwhash cannot read.
fn misuse(message: String) -> PyErr {
    Python::attach(|py| invalid_argument(py, message, None))
}

fn has(obj: &Bound<'_, PyAny>, name: &str) -> bool {
    obj.hasattr(name).unwrap_or(false)
}

/// The keys of a batch argument when they can be read without a Python object per key.
pub(crate) fn fast_keys<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Keys<'py>>> {
    Ok(match keys(obj)? {
        Keys::Objects(_) => None,
        fast => Some(fast),
    })
}

/// Sorts a batch argument into the fastest way to read it.
pub(crate) fn keys<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Keys<'py>> {
    // pandas: a Series or array backed by Arrow hands over its Arrow data through
    // `__arrow_array__` (a pyarrow array), not the capsule protocol.
    if !has(obj, "__arrow_c_array__") && !has(obj, "__arrow_c_stream__") {
        let backing = if has(obj, "__arrow_array__") {
            Some(obj.clone())
        } else if has(obj, "array") && has(obj, "dtype") && has(obj, "to_numpy") {
            obj.getattr("array")
                .ok()
                .filter(|a| has(a, "__arrow_array__"))
        } else {
            None
        };
        if let Some(backing) = backing {
            return keys(&backing.call_method0("__arrow_array__")?);
        }
    }
    if has(obj, "__arrow_c_array__") || has(obj, "__arrow_c_stream__") {
        let invalid = |e| misuse(format!("keys: the Arrow data is not valid ({e})"));
        return Ok(Keys::Arrow(crate::arrow_import::import(
            obj,
            check_key_type,
            invalid,
        )?));
    }
    // NumPy, recognised by what it exposes rather than by importing it.
    if has(obj, "__array_interface__") && has(obj, "dtype") && has(obj, "tobytes") {
        let dtype = obj.getattr("dtype")?;
        let kind: String = dtype.getattr("kind")?.extract()?;
        let ndim: usize = obj.getattr("ndim")?.extract()?;
        if (kind == "S" || kind == "U") && ndim == 1 {
            let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
            // `str_` items are UCS-4 in the array's byte order: '>' or '<', or '=' for this
            // machine's ('|' for `bytes_`, which has none).
            let order: String = dtype.getattr("byteorder")?.extract()?;
            let big_endian = order == ">" || (order == "=" && cfg!(target_endian = "big"));
            // Read in place under the GIL-free hashing: a bytes object never changes.
            let data = obj.call_method0("tobytes")?.cast_into::<PyBytes>()?;
            return Ok(Keys::NumpyFixed {
                data,
                items: NumpyItems {
                    itemsize,
                    unicode: kind == "U",
                    big_endian,
                },
            });
        }
        if kind != "O" && kind != "T" {
            return Err(misuse(format!(
                "keys: a NumPy array of keys holds bytes_, str_ or objects, not dtype {}",
                dtype.str()?
            )));
        }
    }
    Ok(Keys::Objects(obj.clone()))
}

fn check_key_type(dt: &DataType) -> PyResult<()> {
    match dt {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView => Ok(()),
        DataType::Dictionary(_, values) => check_key_type(values),
        other => Err(misuse(format!(
            "keys: an Arrow array of keys is string, large_string, string_view, binary, large_binary or binary_view (or a dictionary of them), not {other}"
        ))),
    }
}

/// Keys handed to the core's batch call at once: a block's key slices (16 bytes each) and its
/// answers stay in the first-level cache beside the core's own digests.
const KEY_BLOCK: usize = 256;

/// Calls `f(start, keys)` with the keys of one Arrow chunk in order, at most `block` at a time,
/// `start` being the row of the first. A null row is handed over as some bytes (empty, or what
/// its offsets span) so that blocks stay contiguous; the caller replaces its answer.
fn arrow_blocks<'a>(
    array: &'a dyn Array,
    block: usize,
    f: &mut impl FnMut(usize, &[&'a [u8]]) -> Result<(), String>,
) -> Result<(), String> {
    let block = block.clamp(1, KEY_BLOCK);
    // The four offsets-and-data types differ in their Rust types only.
    macro_rules! offsets {
        ($a:expr) => {{
            let a = $a;
            offset_blocks(a.value_offsets(), a.value_data(), block, f)
        }};
    }
    match array.data_type() {
        DataType::Utf8 => offsets!(array.as_string::<i32>()),
        DataType::LargeUtf8 => offsets!(array.as_string::<i64>()),
        DataType::Binary => offsets!(array.as_binary::<i32>()),
        DataType::LargeBinary => offsets!(array.as_binary::<i64>()),
        DataType::Utf8View => {
            let a = array.as_string_view();
            row_blocks(a.len(), block, f, |i| match a.is_null(i) {
                true => &[],
                false => a.value(i).as_bytes(),
            })
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            row_blocks(a.len(), block, f, |i| match a.is_null(i) {
                true => &[],
                false => a.value(i),
            })
        }
        DataType::Dictionary(_, _) => {
            let dict = array.as_any_dictionary();
            let values = byte_values(dict.values().as_ref())?;
            if values.is_empty() {
                // Validated, so every row is null; normalized_keys would panic on no values.
                return row_blocks(array.len(), block, f, |_| &[]);
            }
            let codes = dict.normalized_keys();
            row_blocks(array.len(), block, f, |row| {
                values
                    .get(codes[row])
                    .copied()
                    .flatten()
                    .unwrap_or_default()
            })
        }
        other => Err(format!("keys of type {other}")),
    }
}

/// The blocks of an offsets-and-data array, read straight off its offsets: validated on import,
/// so every slice is in bounds (a bad one would be taken as the empty key, never read past).
fn offset_blocks<'a, O: OffsetSizeTrait>(
    offsets: &[O],
    values: &'a [u8],
    block: usize,
    f: &mut impl FnMut(usize, &[&'a [u8]]) -> Result<(), String>,
) -> Result<(), String> {
    let mut keys: [&[u8]; KEY_BLOCK] = [&[]; KEY_BLOCK];
    let rows = offsets.len().saturating_sub(1);
    let mut start = 0;
    while start < rows {
        let n = (rows - start).min(block);
        for (key, ends) in keys.iter_mut().zip(offsets[start..=start + n].windows(2)) {
            *key = values
                .get(ends[0].as_usize()..ends[1].as_usize())
                .unwrap_or_default();
        }
        f(start, &keys[..n])?;
        start += n;
    }
    Ok(())
}

/// The blocks of `rows` keys, key `i` being `key(i)`.
fn row_blocks<'a>(
    rows: usize,
    block: usize,
    f: &mut impl FnMut(usize, &[&'a [u8]]) -> Result<(), String>,
    key: impl Fn(usize) -> &'a [u8],
) -> Result<(), String> {
    let mut keys: [&[u8]; KEY_BLOCK] = [&[]; KEY_BLOCK];
    let mut start = 0;
    while start < rows {
        let n = (rows - start).min(block);
        for (slot, i) in keys.iter_mut().zip(start..start + n) {
            *slot = key(i);
        }
        f(start, &keys[..n])?;
        start += n;
    }
    Ok(())
}

/// The values of a (small) dictionary's value array, borrowed, `None` for a null value.
fn byte_values(array: &dyn Array) -> Result<Vec<Option<&[u8]>>, String> {
    macro_rules! collect {
        ($a:expr) => {{
            let a = $a;
            (0..a.len())
                .map(|i| (!a.is_null(i)).then(|| AsRef::<[u8]>::as_ref(a.value(i))))
                .collect()
        }};
    }
    Ok(match array.data_type() {
        DataType::Utf8 => collect!(array.as_string::<i32>()),
        DataType::LargeUtf8 => collect!(array.as_string::<i64>()),
        DataType::Utf8View => collect!(array.as_string_view()),
        DataType::Binary => collect!(array.as_binary::<i32>()),
        DataType::LargeBinary => collect!(array.as_binary::<i64>()),
        DataType::BinaryView => collect!(array.as_binary_view()),
        other => return Err(format!("dictionary values of type {other}")),
    })
}

/// A dictionary-encoded chunk with no more distinct values than rows: its values and each row's
/// code, so that each value is hashed once rather than once per row.
fn small_dictionary(array: &dyn Array) -> Option<(&ArrayRef, Vec<usize>)> {
    let dict = array.as_any_dictionary_opt()?;
    let values = dict.values();
    if values.is_empty() || values.len() > array.len() {
        return None;
    }
    Some((values, dict.normalized_keys()))
}

/// Copies the node indices of one block into the slots of the answer, which holds them as
/// uint32 (a placement has fewer than 2**32 nodes).
#[inline]
fn narrow_into(slots: &mut [u32], indices: &[usize]) {
    for (slot, &i) in slots.iter_mut().zip(indices) {
        *slot = i as u32;
    }
}

/// The owner index of every row of one Arrow chunk into `slots` (as long as the chunk); a null
/// row's slot gets an arbitrary index, which the caller resets.
fn arrow_owners(
    placement: &hrwhash::Placement,
    array: &dyn Array,
    slots: &mut [u32],
) -> Result<(), String> {
    if let Some((values, codes)) = small_dictionary(array) {
        let mut value_owners = vec![0u32; values.len()];
        arrow_owners(placement, values.as_ref(), &mut value_owners)?;
        for (slot, code) in slots.iter_mut().zip(codes) {
            // A null row's code may point anywhere.
            *slot = value_owners.get(code).copied().unwrap_or(0);
        }
        return Ok(());
    }
    let mut owners = [0usize; KEY_BLOCK];
    arrow_blocks(array, KEY_BLOCK, &mut |start, keys| {
        let owners = &mut owners[..keys.len()];
        placement
            .owners_into(keys, owners)
            .map_err(|e| e.to_string())?;
        narrow_into(&mut slots[start..], owners);
        Ok(())
    })
}

/// Ranked node indices used per block of `rank_many_into`, whatever `k` is.
const RANK_BLOCK_SLOTS: usize = 4096;

/// The first `k` ranked nodes of every row of one Arrow chunk into `rows` (`k` slots per row, `k`
/// at most the selectable nodes); a null row's slots get arbitrary indices, which the caller
/// resets.
fn arrow_ranks(
    placement: &hrwhash::Placement,
    array: &dyn Array,
    k: usize,
    rows: &mut [u32],
) -> Result<(), String> {
    if k == 0 {
        return Ok(());
    }
    if let Some((values, codes)) = small_dictionary(array) {
        let mut value_rows = vec![0u32; values.len() * k];
        arrow_ranks(placement, values.as_ref(), k, &mut value_rows)?;
        for (row, code) in rows.chunks_exact_mut(k).zip(codes) {
            match value_rows.get(code * k..(code + 1) * k) {
                Some(ranked) => row.copy_from_slice(ranked),
                None => row.fill(0),
            }
        }
        return Ok(());
    }
    let block = (RANK_BLOCK_SLOTS / k).clamp(1, KEY_BLOCK);
    let mut ranked = vec![0usize; block * k];
    arrow_blocks(array, block, &mut |start, keys| {
        let ranked = &mut ranked[..keys.len() * k];
        placement
            .rank_many_into(keys, k, ranked)
            .map_err(|e| e.to_string())?;
        narrow_into(&mut rows[start * k..], ranked);
        Ok(())
    })
}

/// Calls `f(start, keys)` with the items of a fixed-width NumPy array in order, at most `block`
/// at a time, `start` being the index of the first. Trailing NULs are padding, as NumPy itself
/// reads them; `str_` items are UCS-4 and are encoded as UTF-8, the first that is not text
/// failing the call before any later key is read.
fn numpy_blocks(
    data: &[u8],
    items: NumpyItems,
    block: usize,
    f: &mut impl FnMut(usize, &[&[u8]]) -> Result<(), Error>,
) -> Result<(), Error> {
    let NumpyItems {
        itemsize,
        unicode,
        big_endian,
    } = items;
    let block = block.clamp(1, KEY_BLOCK);
    let n = items.count(data);
    let item = |i: usize| &data[i * itemsize..(i + 1) * itemsize];
    let mut scratch = Vec::new();
    let mut ends = [0usize; KEY_BLOCK];
    let mut start = 0;
    while start < n {
        let m = (n - start).min(block);
        let mut keys: [&[u8]; KEY_BLOCK] = [&[]; KEY_BLOCK];
        if unicode {
            scratch.clear();
            for (j, end) in ends[..m].iter_mut().enumerate() {
                push_ucs4(item(start + j), big_endian, start + j, &mut scratch)?;
                *end = scratch.len();
            }
            let mut from = 0;
            for (key, &end) in keys.iter_mut().zip(&ends[..m]) {
                *key = &scratch[from..end];
                from = end;
            }
        } else {
            for (j, key) in keys[..m].iter_mut().enumerate() {
                let item = item(start + j);
                let end = item.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                *key = &item[..end];
            }
        }
        f(start, &keys[..m])?;
        start += m;
    }
    Ok(())
}

/// Appends the UTF-8 of one UCS-4 `str_` item (item `index`) to `out`, without its NUL padding.
fn push_ucs4(item: &[u8], big_endian: bool, index: usize, out: &mut Vec<u8>) -> Result<(), Error> {
    // Trailing NULs are padding: count the code points up to the last non-NUL one.
    let len = item
        .chunks_exact(4)
        .rposition(|c| c != [0, 0, 0, 0])
        .map_or(0, |p| p + 1);
    for c in item.chunks_exact(4).take(len) {
        let c = [c[0], c[1], c[2], c[3]];
        let u = match big_endian {
            true => u32::from_be_bytes(c),
            false => u32::from_le_bytes(c),
        };
        let c = char::from_u32(u).ok_or(Error::InvalidText { index: Some(index) })?;
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    Ok(())
}

/// Fills `rows` (`width` slots per row of `chunk`) by `fill` without the GIL, resets the slots of
/// its null rows to 0 and records its nulls.
fn arrow_chunk(
    py: Python<'_>,
    chunk: &ArrayRef,
    rows: &mut [u32],
    width: usize,
    nulls: &mut NullBufferBuilder,
    fill: impl FnOnce(&dyn Array, &mut [u32]) -> Result<(), String> + Send,
) -> PyResult<()> {
    let (result, chunk_nulls) = py.detach(|| {
        let r = fill(chunk.as_ref(), &mut *rows);
        let chunk_nulls = chunk.logical_nulls();
        if let (Some(n), true) = (&chunk_nulls, width > 0) {
            for (row, valid) in rows.chunks_exact_mut(width).zip(n.iter()) {
                if !valid {
                    row.fill(0);
                }
            }
        }
        (r, chunk_nulls)
    });
    result.map_err(|m| misuse(format!("keys: {m}")))?;
    match chunk_nulls {
        Some(n) => nulls.append_buffer(&n),
        None => nulls.append_n_non_nulls(chunk.len()),
    }
    Ok(())
}

/// The owner index of every key (`None` for a null key), in input order. The hashing runs without
/// the GIL, and the answers go straight into the array that is handed out.
pub(crate) fn owner_indices(
    py: Python<'_>,
    placement: &hrwhash::Placement,
    keys: Keys<'_>,
) -> PyResult<(Vec<u32>, Option<NullBuffer>)> {
    let mut out: Vec<u32> = Vec::new();
    let mut nulls = NullBufferBuilder::new(0);
    match keys {
        Keys::Arrow(chunks) => {
            for chunk in chunks {
                let chunk = chunk?;
                let start = out.len();
                out.resize(start + chunk.len(), 0);
                let slots = &mut out[start..];
                arrow_chunk(py, &chunk, slots, 1, &mut nulls, |array, slots| {
                    arrow_owners(placement, array, slots)
                })?;
            }
        }
        Keys::NumpyFixed { data, items } => {
            let data = data.as_bytes();
            let n = items.count(data);
            out.resize(n, 0);
            let slots = &mut out[..];
            py.detach(|| {
                let mut owners = [0usize; KEY_BLOCK];
                numpy_blocks(data, items, KEY_BLOCK, &mut |start, keys| {
                    let owners = &mut owners[..keys.len()];
                    placement.owners_into(keys, owners)?;
                    narrow_into(&mut slots[start..], owners);
                    Ok(())
                })
            })
            .map_err(|e| error(py, e, None))?;
            nulls.append_n_non_nulls(n);
        }
        Keys::Objects(obj) => {
            let keys = NoneAsNull::over(&obj)?;
            let mut slots = vec![0usize; OBJECT_CHUNK];
            crate::stream_chunks(keys.as_any(), OBJECT_CHUNK, |chunk| {
                let slots = &mut slots[..chunk.len()];
                py.detach(|| placement.owners_into(chunk, slots))
                    .map_err(|e| error(py, e, None))?;
                out.extend(slots.iter().map(|&i| i as u32));
                Ok(())
            })?;
            keys.borrow().append_nulls(&mut nulls, out.len());
        }
    }
    Ok((out, nulls.finish()))
}

/// The keys of an iterable with `b""` in place of each `None`, whose positions it records: the
/// Arrow answers hold a null there, as they do for an Arrow null (the list answers never get here,
/// and refuse `None` as a key).
#[pyclass]
struct NoneAsNull {
    keys: Py<PyIterator>,
    read: usize,
    nones: Vec<usize>,
}

impl NoneAsNull {
    fn over<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, NoneAsNull>> {
        let keys = crate::args::items_iter(obj, "keys")?.unbind();
        Bound::new(
            obj.py(),
            NoneAsNull {
                keys,
                read: 0,
                nones: Vec::new(),
            },
        )
    }

    /// The validity of `rows` answers: valid but where a `None` was read.
    fn append_nulls(&self, nulls: &mut NullBufferBuilder, rows: usize) {
        let mut done = 0;
        for &i in &self.nones {
            nulls.append_n_non_nulls(i - done);
            nulls.append_null();
            done = i + 1;
        }
        nulls.append_n_non_nulls(rows - done);
    }
}

#[pymethods]
impl NoneAsNull {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let Some(key) = self.keys.bind(py).clone().next() else {
            return Ok(None);
        };
        let key = key?;
        self.read += 1;
        if key.is_none() {
            self.nones.push(self.read - 1);
            return Ok(Some(PyBytes::new(py, b"").into_any().unbind()));
        }
        Ok(Some(key.unbind()))
    }
}

/// The first null position, for answers that cannot hold a null.
pub(crate) fn reject_nulls(py: Python<'_>, nulls: &Option<NullBuffer>) -> PyResult<()> {
    if let Some(n) = nulls {
        if let Some(i) = (0..n.len()).find(|&i| n.is_null(i)) {
            return Err(invalid_argument(
                py,
                format!("keys: the key at index {i} is null; an Arrow answer (owners_arrow, owner_indices, rank_many_arrow) keeps nulls, a list cannot"),
                Some(i),
            ));
        }
    }
    Ok(())
}

/// The node ids as an Arrow array: `string` when every id is str, else `binary`.
fn id_values(py: Python<'_>, placement: &Placement) -> PyResult<ArrayRef> {
    let mut all_text = true;
    let mut ids: Vec<Vec<u8>> = Vec::with_capacity(placement.ids.len());
    for id in &placement.ids {
        let id = id.bind(py);
        all_text &= id.is_instance_of::<PyString>();
        ids.push(id_bytes(id, At::one("the node id"))?.to_vec());
    }
    Ok(if all_text {
        let text = ids
            .iter()
            .map(|b| std::str::from_utf8(b).unwrap_or_default());
        Arc::new(StringArray::from_iter_values(text))
    } else {
        Arc::new(BinaryArray::from_iter_values(ids.iter()))
    })
}

/// The answer in the library the keys came from (pandas, Polars, pyarrow; see `_results.py`).
fn export(
    py: Python<'_>,
    keys: &Bound<'_, PyAny>,
    array: ArrayRef,
    name: &str,
) -> PyResult<Py<PyAny>> {
    let field = Field::new(name, array.data_type().clone(), array.null_count() > 0);
    let answer = PyArray::new(array, Arc::new(field)).into_pyobject(py)?;
    Ok(py
        .import("hrwhash._results")?
        .getattr("follow")?
        .call1((keys, answer))?
        .unbind())
}

#[pymethods]
impl Placement {
    /// The owner of each key as an Arrow dictionary array (uint32 indices into the node ids), with a
    /// null where the key is null.
    fn owners_arrow(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let (indices, nulls) = owner_indices(py, &self.inner, self::keys(keys)?)?;
        let codes = UInt32Array::new(ScalarBuffer::from(indices), nulls);
        let dict = DictionaryArray::<UInt32Type>::try_new(codes, id_values(py, self)?)
            .map_err(|e| misuse(e.to_string()))?;
        export(py, keys, Arc::new(dict), "owner")
    }

    /// The build-order index of the owner of each key, as an Arrow uint32 array.
    fn owner_indices(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let (indices, nulls) = owner_indices(py, &self.inner, self::keys(keys)?)?;
        export(
            py,
            keys,
            Arc::new(UInt32Array::new(ScalarBuffer::from(indices), nulls)),
            "owner_index",
        )
    }

    /// The first `k` nodes of the ranking of each key, as an Arrow fixed-size list of uint32 node
    /// indices (`min(k, selectable)` per key), with a null where the key is null.
    fn rank_many_arrow(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        k: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let given = keys;
        let keys = self::keys(keys)?;
        let k = count_arg(k, "k")?.get()?.min(self.inner.selectable_len());
        let (rows, nulls, n) = rank_rows(py, &self.inner, keys, k)?;
        // With k = 0 the list length cannot come from the values; a validity buffer carries it.
        let nulls = if k == 0 {
            Some(nulls.unwrap_or_else(|| NullBuffer::new_valid(n)))
        } else {
            nulls
        };
        let values = UInt32Array::from(rows);
        let field = Arc::new(Field::new("item", DataType::UInt32, false));
        let list = FixedSizeListArray::try_new(field, k as i32, Arc::new(values), nulls)
            .map_err(|e| misuse(e.to_string()))?;
        export(py, given, Arc::new(list), "ranking")
    }
}

/// `k` ranked node indices per key, row after row (zeros for a null key).
pub(crate) fn rank_rows(
    py: Python<'_>,
    placement: &hrwhash::Placement,
    keys: Keys<'_>,
    k: usize,
) -> PyResult<(Vec<u32>, Option<NullBuffer>, usize)> {
    // Owners first is no use here: rank each key once, straight from the same readers.
    let mut out: Vec<u32> = Vec::new();
    let mut nulls = NullBufferBuilder::new(0);
    // The answer is refused before it grows past what a list or array of ids can hold (API.md 3).
    let too_large = |rows: usize| {
        rows.checked_mul(k)
            .is_none_or(|ids| ids > crate::MAX_RESULT_IDS)
            .then(|| {
                error(
                    py,
                    Error::ResultTooLarge,
                    Some(format!("{rows} keys with k = {k}")),
                )
            })
    };
    match keys {
        Keys::Arrow(chunks) => {
            for chunk in chunks {
                let chunk = chunk?;
                if let Some(e) = too_large(nulls.len() + chunk.len()) {
                    return Err(e);
                }
                let start = out.len();
                out.resize(start + chunk.len() * k, 0);
                let rows = &mut out[start..];
                arrow_chunk(py, &chunk, rows, k, &mut nulls, |array, rows| {
                    arrow_ranks(placement, array, k, rows)
                })?;
            }
        }
        Keys::NumpyFixed { data, items } => {
            let data = data.as_bytes();
            let n = items.count(data);
            if let Some(e) = too_large(n) {
                return Err(e);
            }
            out.resize(n * k, 0);
            // k = 0: no slots to fill.
            if let Some(per_block) = RANK_BLOCK_SLOTS.checked_div(k) {
                let rows = &mut out[..];
                let block = per_block.clamp(1, KEY_BLOCK);
                py.detach(|| {
                    let mut ranked = vec![0usize; block * k];
                    numpy_blocks(data, items, block, &mut |start, keys| {
                        let ranked = &mut ranked[..keys.len() * k];
                        placement.rank_many_into(keys, k, ranked)?;
                        narrow_into(&mut rows[start * k..], ranked);
                        Ok(())
                    })
                })
                .map_err(|e| error(py, e, None))?;
            }
            nulls.append_n_non_nulls(n);
        }
        Keys::Objects(obj) => {
            let keys = NoneAsNull::over(&obj)?;
            let mut rows = 0;
            let mut row = vec![0usize; k];
            crate::stream_chunks(keys.as_any(), OBJECT_CHUNK, |chunk| {
                rows += chunk.len();
                if let Some(e) = too_large(rows) {
                    return Err(e);
                }
                for key in chunk {
                    placement.rank_into(key, &mut row);
                    out.extend(row.iter().map(|&i| i as u32));
                }
                Ok(())
            })?;
            keys.borrow().append_nulls(&mut nulls, rows);
        }
    }
    let rows = nulls.len();
    Ok((out, nulls.finish(), rows))
}
