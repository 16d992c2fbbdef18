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
    Array, ArrayRef, BinaryArray, DictionaryArray, FixedSizeListArray, StringArray, UInt32Array,
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

/// Keys per GIL-free section when keys are read from Python objects.
const OBJECT_CHUNK: usize = 4096;

/// What a batch call was given, read without a Python object per key where the input allows.
pub(crate) enum Keys<'py> {
    /// Arrow chunks (string, large_string, string_view, binary, large_binary, binary_view).
    Arrow(Box<dyn Iterator<Item = PyResult<ArrayRef>> + 'py>),
    /// A 1-d NumPy array of fixed-width `bytes_` (`S`) or `str_` (`U`) items, copied out once.
    NumpyFixed {
        data: Vec<u8>,
        itemsize: usize,
        unicode: bool,
        big_endian: bool,
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
            let bytes = obj.call_method0("tobytes")?;
            let data = bytes.cast::<PyBytes>()?.as_bytes().to_vec();
            return Ok(Keys::NumpyFixed {
                data,
                itemsize,
                unicode: kind == "U",
                big_endian,
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

/// Calls `f(position, Some(key))` for every key of one Arrow chunk in order, `f(position, None)`
/// for a null one.
fn each_arrow_key<'a>(
    array: &'a dyn Array,
    f: &mut dyn FnMut(usize, Option<&'a [u8]>),
) -> Result<(), String> {
    macro_rules! walk {
        ($a:expr) => {{
            let a = $a;
            for i in 0..a.len() {
                if a.is_null(i) {
                    f(i, None)
                } else {
                    f(i, Some(AsRef::<[u8]>::as_ref(a.value(i))))
                }
            }
        }};
    }
    match array.data_type() {
        DataType::Utf8 => walk!(array.as_string::<i32>()),
        DataType::LargeUtf8 => walk!(array.as_string::<i64>()),
        DataType::Utf8View => walk!(array.as_string_view()),
        DataType::Binary => walk!(array.as_binary::<i32>()),
        DataType::LargeBinary => walk!(array.as_binary::<i64>()),
        DataType::BinaryView => walk!(array.as_binary_view()),
        DataType::Dictionary(_, _) => {
            let dict = array.as_any_dictionary();
            let values = byte_values(dict.values().as_ref())?;
            if values.is_empty() {
                // Validated, so every row is null; normalized_keys would panic on no values.
                (0..array.len()).for_each(|row| f(row, None));
                return Ok(());
            }
            for (row, code) in dict.normalized_keys().into_iter().enumerate() {
                match (array.is_null(row), values.get(code)) {
                    (false, Some(Some(key))) => f(row, Some(key)),
                    _ => f(row, None),
                }
            }
        }
        other => return Err(format!("keys of type {other}")),
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

/// The bytes of item `i` of a fixed-width NumPy array: trailing NULs are padding, as NumPy itself
/// reads them; `str_` items are UCS-4 and are encoded as UTF-8 into `scratch`.
fn numpy_item<'a>(
    data: &'a [u8],
    itemsize: usize,
    unicode: bool,
    big_endian: bool,
    i: usize,
    scratch: &'a mut Vec<u8>,
) -> Result<&'a [u8], Error> {
    let item = &data[i * itemsize..(i + 1) * itemsize];
    if !unicode {
        let end = item.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
        return Ok(&item[..end]);
    }
    scratch.clear();
    let units = item
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .map(|c| match big_endian {
            true => u32::from_be_bytes(c),
            false => u32::from_le_bytes(c),
        });
    // Trailing NULs are padding: count the code points up to the last non-NUL one.
    let len = item
        .chunks_exact(4)
        .rposition(|c| c != [0, 0, 0, 0])
        .map_or(0, |p| p + 1);
    for u in units.take(len) {
        let c = char::from_u32(u).ok_or(Error::InvalidText { index: Some(i) })?;
        let mut buf = [0u8; 4];
        scratch.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    Ok(&scratch[..])
}

/// Keys handed to the core's batch call at once.
const KEY_BLOCK: usize = 1024;

/// The owner index of every key (`None` for a null key), in input order. The hashing runs without
/// the GIL.
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
                // The answers go straight into `out`: 4 bytes per key, no second copy.
                let start = out.len();
                out.resize(start + chunk.len(), 0);
                let slots = &mut out[start..];
                let (result, chunk_nulls) = py.detach(|| {
                    // Keys go to the core a block at a time (its batch call digests several at
                    // once); a null takes the empty key's place and its answer is reset below.
                    let mut block: Vec<&[u8]> = Vec::with_capacity(KEY_BLOCK);
                    let mut owners = vec![0usize; KEY_BLOCK];
                    let mut done = 0;
                    let mut flush = |block: &mut Vec<&[u8]>| {
                        let owners = &mut owners[..block.len()];
                        placement
                            .owners_into(block, owners)
                            .map_err(|e| e.to_string())?;
                        for (slot, &o) in slots[done..].iter_mut().zip(owners.iter()) {
                            *slot = o as u32;
                        }
                        done += block.len();
                        block.clear();
                        Ok::<(), String>(())
                    };
                    let mut failed = Ok(());
                    let walked = each_arrow_key(chunk.as_ref(), &mut |_, key| {
                        block.push(key.unwrap_or_default());
                        if block.len() == KEY_BLOCK && failed.is_ok() {
                            failed = flush(&mut block);
                        }
                    });
                    let r = walked.and(failed).and_then(|()| flush(&mut block));
                    let chunk_nulls = chunk.logical_nulls();
                    if let Some(n) = &chunk_nulls {
                        for (slot, valid) in slots.iter_mut().zip(n.iter()) {
                            if !valid {
                                *slot = 0;
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
            }
        }
        Keys::NumpyFixed {
            data,
            itemsize,
            unicode,
            big_endian,
        } => {
            let n = if itemsize == 0 {
                0
            } else {
                data.len() / itemsize
            };
            out = py
                .detach(|| {
                    let mut scratch = Vec::new();
                    (0..n)
                        .map(|i| {
                            numpy_item(&data, itemsize, unicode, big_endian, i, &mut scratch)
                                .map(|key| placement.owner_index(key) as u32)
                        })
                        .collect::<Result<Vec<u32>, Error>>()
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
    let mut row = vec![0usize; k];
    let push = |out: &mut Vec<u32>, key: &[u8], row: &mut Vec<usize>| {
        placement.rank_into(key, row);
        out.extend(row.iter().map(|&i| i as u32));
    };
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
                let local = py.detach(|| {
                    let mut local: Vec<u32> = Vec::with_capacity(chunk.len() * k);
                    let mut row = vec![0usize; k];
                    each_arrow_key(chunk.as_ref(), &mut |_, key| match key {
                        Some(key) => push(&mut local, key, &mut row),
                        None => local.extend(std::iter::repeat_n(0, k)),
                    })
                    .map(|_| local)
                });
                let local = local.map_err(|m| misuse(format!("keys: {m}")))?;
                match chunk.logical_nulls() {
                    Some(n) => nulls.append_buffer(&n),
                    None => nulls.append_n_non_nulls(chunk.len()),
                }
                out.extend_from_slice(&local);
            }
        }
        Keys::NumpyFixed {
            data,
            itemsize,
            unicode,
            big_endian,
        } => {
            let n = if itemsize == 0 {
                0
            } else {
                data.len() / itemsize
            };
            if let Some(e) = too_large(n) {
                return Err(e);
            }
            let mut scratch = Vec::new();
            for i in 0..n {
                let key = numpy_item(&data, itemsize, unicode, big_endian, i, &mut scratch)
                    .map_err(|e| error(py, e, None))?;
                push(&mut out, key, &mut row);
            }
            nulls.append_n_non_nulls(n);
        }
        Keys::Objects(obj) => {
            let keys = NoneAsNull::over(&obj)?;
            let mut rows = 0;
            crate::stream_chunks(keys.as_any(), OBJECT_CHUNK, |chunk| {
                rows += chunk.len();
                if let Some(e) = too_large(rows) {
                    return Err(e);
                }
                for key in chunk {
                    push(&mut out, key, &mut row);
                }
                Ok(())
            })?;
            keys.borrow().append_nulls(&mut nulls, rows);
        }
    }
    let rows = nulls.len();
    Ok((out, nulls.finish(), rows))
}
