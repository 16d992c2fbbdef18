//! Arrow arrays and streams taken in through the PyCapsule interface, validated before a byte of
//! their data is read.
//!
//! The C data interface carries pointers, not buffer sizes: arrow-rs derives each buffer's size
//! from the array's `length`, `offset` and offsets, and trusts them. So an array is checked in
//! three steps, each covering what the one after it assumes:
//! 1. a pyarrow object is asked to validate itself (`validate()`): only the producer knows how
//!    long its buffers really are, so only it can tell offsets or a length that run past them;
//! 2. the C structure itself (not released, no negative length or offset, the buffers and the
//!    dictionary the type needs), which arrow-rs would otherwise assert on or read through;
//! 3. arrow-rs's `ArrayData::validate_full` on the imported data: offsets in order and inside the
//!    data, views inside their buffers, UTF-8, dictionary indices inside the dictionary.
//!    Text whose bytes are all ASCII is validated as binary of the same layout: the same verdict.

use std::ffi::{c_char, c_void};
use std::ptr::NonNull;

use arrow_array::ffi::{from_ffi_and_data_type, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{make_array, ArrayRef};
use arrow_schema::{DataType, Field};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

/// The largest `offset + length` taken: far beyond any array that fits in memory, small enough
/// that arrow-rs's buffer sizes (up to 16 bytes per row) cannot overflow.
const MAX_ROWS: u64 = (isize::MAX as u64) / 32;

/// Arrow chunks read one at a time, each validated.
pub(crate) type Chunks = Box<dyn Iterator<Item = PyResult<ArrayRef>>>;

/// The chunks of an object that has `__arrow_c_array__` or `__arrow_c_stream__`, once
/// `check_type` has accepted their data type; `invalid` makes the error for a malformed array from
/// a message that says what is wrong with it.
pub(crate) fn import(
    obj: &Bound<'_, PyAny>,
    check_type: impl Fn(&DataType) -> PyResult<()>,
    invalid: fn(String) -> PyErr,
) -> PyResult<Chunks> {
    producer_validate(obj).map_err(invalid)?;
    let text = |e: PyErr| invalid(e.to_string());
    if obj.hasattr("__arrow_c_array__").map_err(text)? {
        let pair = obj.call_method0("__arrow_c_array__").map_err(text)?;
        let pair = pair
            .cast::<PyTuple>()
            .ok()
            .filter(|p| p.len() == 2)
            .ok_or_else(|| {
                invalid("__arrow_c_array__ did not return a (schema, array) pair".into())
            })?;
        let schema = capsule(&pair.get_item(0)?, c"arrow_schema").map_err(invalid)?;
        let array = capsule(&pair.get_item(1)?, c"arrow_array").map_err(invalid)?;
        let data_type = data_type(schema.cast()).map_err(invalid)?;
        check_type(&data_type)?;
        // SAFETY: the capsule holds an ArrowArray whose schema is the one above.
        let chunk = unsafe { take_array(array.cast(), &data_type) }.map_err(invalid)?;
        return Ok(Box::new(std::iter::once(Ok(chunk))));
    }
    let stream = obj.call_method0("__arrow_c_stream__").map_err(text)?;
    let stream = capsule(&stream, c"arrow_array_stream").map_err(invalid)?;
    let stream = stream.cast::<FFI_ArrowArrayStream>();
    // SAFETY: the capsule holds an ArrowArrayStream; a released one (no callbacks) is refused
    // before it is moved out, and from then on the reader owns it and releases it on drop.
    let mut stream = unsafe {
        if stream.as_ref().release.is_none() {
            return Err(invalid("the Arrow stream was already released".into()));
        }
        FFI_ArrowArrayStream::from_raw(stream.as_ptr())
    };
    let (Some(get_schema), Some(_)) = (stream.get_schema, stream.get_next) else {
        return Err(invalid(
            "the Arrow stream has no get_schema or get_next callback".into(),
        ));
    };
    let mut schema = FFI_ArrowSchema::empty();
    // SAFETY: a live stream and an empty schema for it to fill.
    if unsafe { get_schema(&mut stream, &mut schema) } != 0 {
        let message = format!(
            "the Arrow stream gave no schema ({})",
            last_error(&mut stream)
        );
        return Err(invalid(message));
    }
    let data_type = data_type(NonNull::from(&mut schema)).map_err(invalid)?;
    check_type(&data_type)?;
    Ok(Box::new(std::iter::from_fn(move || {
        next_chunk(&mut stream, &data_type).map(|c| c.map_err(invalid))
    })))
}

/// pyarrow's own structural check (`Array.validate()`, `ChunkedArray.validate()`): buffer sizes
/// against length, offset and the first and last offsets, which no consumer can see.
fn producer_validate(obj: &Bound<'_, PyAny>) -> Result<(), String> {
    let module: String = obj
        .get_type()
        .getattr("__module__")
        .and_then(|m| m.extract())
        .unwrap_or_default();
    if module != "pyarrow" && !module.starts_with("pyarrow.") {
        return Ok(());
    }
    match obj.getattr("validate") {
        Ok(validate) => validate.call0().map(drop).map_err(|e| e.to_string()),
        Err(_) => Ok(()),
    }
}

fn capsule(obj: &Bound<'_, PyAny>, name: &std::ffi::CStr) -> Result<NonNull<c_void>, String> {
    let wrong = || {
        format!(
            "the Arrow data is {}, not a capsule named {name:?}",
            crate::args::type_name(obj)
        )
    };
    let capsule = obj.cast::<PyCapsule>().map_err(|_| wrong())?;
    capsule.pointer_checked(Some(name)).map_err(|_| wrong())
}

/// The first fields of an ArrowSchema as the C data interface lays them out, enough to tell a
/// released one (arrow-rs would read its format string regardless).
#[repr(C)]
struct SchemaHead {
    format: *const c_char,
    _name: *const c_char,
    _metadata: *const c_char,
    _flags: i64,
    _n_children: i64,
    _children: *mut c_void,
    _dictionary: *mut c_void,
    release: Option<unsafe extern "C" fn(*mut SchemaHead)>,
}

fn data_type(schema: NonNull<FFI_ArrowSchema>) -> Result<DataType, String> {
    // SAFETY: the schema is a live ArrowSchema (from a capsule or a stream), whose first fields
    // `SchemaHead` mirrors.
    let head = unsafe { schema.cast::<SchemaHead>().as_ref() };
    if head.release.is_none() || head.format.is_null() {
        return Err("the Arrow schema was already released".into());
    }
    // SAFETY: as above; arrow-rs reads the format string and the children it names.
    let field = Field::try_from(unsafe { schema.as_ref() }).map_err(|e| e.to_string())?;
    Ok(field.data_type().clone())
}

/// Moves the array out of `ptr` once its structure is checked, imports it, and validates it.
///
/// # Safety
/// `ptr` points to an ArrowArray (possibly released) whose schema is `data_type`.
unsafe fn take_array(
    ptr: NonNull<FFI_ArrowArray>,
    data_type: &DataType,
) -> Result<ArrayRef, String> {
    // SAFETY: the caller's.
    check_structure(unsafe { ptr.as_ref() }, data_type)?;
    // SAFETY: checked above that it is not released; the move leaves a released one behind.
    let array = unsafe { FFI_ArrowArray::from_raw(ptr.as_ptr()) };
    import_checked(array, data_type)
}

fn import_checked(array: FFI_ArrowArray, data_type: &DataType) -> Result<ArrayRef, String> {
    // SAFETY: `check_structure` has held the array to what arrow-rs's import assumes of it but
    // cannot check (the buffer sizes it derives are the producer's word, see the module docs).
    let data =
        unsafe { from_ffi_and_data_type(array, data_type.clone()) }.map_err(|e| e.to_string())?;
    // Text whose value bytes are all ASCII is UTF-8 with every offset on a character boundary, so
    // it passes arrow-rs's text check, which looks at each offset again, exactly when it passes
    // the binary check of the same layout. Anything else (other types, other bytes, a fault)
    // gets the text check, and its error.
    let binary = match data.data_type() {
        DataType::Utf8 => Some(DataType::Binary),
        DataType::LargeUtf8 => Some(DataType::LargeBinary),
        _ => None,
    };
    let ascii_valid = binary.is_some_and(|binary| {
        data.buffers()
            .get(1)
            .is_some_and(|v| v.as_slice().is_ascii())
            && {
                // SAFETY: the same buffers under a type of the same layout, validated in full before
                // anything is read through them.
                let as_binary = unsafe {
                    data.clone()
                        .into_builder()
                        .data_type(binary)
                        .build_unchecked()
                };
                as_binary.validate_full().is_ok()
            }
    });
    if !ascii_valid {
        data.validate_full().map_err(|e| e.to_string())?;
    }
    Ok(make_array(data))
}

fn next_chunk(
    stream: &mut FFI_ArrowArrayStream,
    data_type: &DataType,
) -> Option<Result<ArrayRef, String>> {
    let get_next = stream.get_next?;
    let mut array = FFI_ArrowArray::empty();
    // SAFETY: a live stream and an empty array for it to fill.
    if unsafe { get_next(stream, &mut array) } != 0 {
        return Some(Err(format!(
            "reading the Arrow stream failed ({})",
            last_error(stream)
        )));
    }
    // A released array is the end of the stream.
    if array.is_released() {
        return None;
    }
    Some(check_structure(&array, data_type).and_then(|()| import_checked(array, data_type)))
}

fn last_error(stream: &mut FFI_ArrowArrayStream) -> String {
    let Some(get_last_error) = stream.get_last_error else {
        return "no message".into();
    };
    // SAFETY: a live stream; its message, if any, is a NUL-terminated string it owns.
    let message = unsafe { get_last_error(stream) };
    if message.is_null() {
        return "no message".into();
    }
    unsafe { std::ffi::CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned()
}

/// An ArrowArray as the C data interface lays it out: arrow-rs's accessors assert on a missing
/// buffer list and cast the signed sizes to usize, so the structure is checked on the raw fields.
#[repr(C)]
struct RawArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *const *const c_void,
    children: *const c_void,
    dictionary: *const RawArray,
    release: Option<unsafe extern "C" fn(*mut RawArray)>,
    private_data: *mut c_void,
}

/// What arrow-rs's import takes on trust and asserts on or reads through: a live array with
/// non-negative sizes, as many buffers as the type has, an offsets buffer where there are rows, and
/// a dictionary exactly when the type is dictionary-encoded.
fn check_structure(array: &FFI_ArrowArray, data_type: &DataType) -> Result<(), String> {
    // SAFETY: FFI_ArrowArray is the C structure, which `RawArray` mirrors field for field.
    check_raw(
        unsafe { &*(array as *const FFI_ArrowArray).cast::<RawArray>() },
        data_type,
    )
}

fn check_raw(array: &RawArray, data_type: &DataType) -> Result<(), String> {
    if array.release.is_none() {
        return Err("the Arrow array was already released".into());
    }
    let (length, offset) = (array.length, array.offset);
    if length < 0 || offset < 0 {
        return Err(format!(
            "the Arrow array has length {length} and offset {offset}"
        ));
    }
    if (length as u64).saturating_add(offset as u64) > MAX_ROWS {
        return Err(format!(
            "the Arrow array's offset + length, {offset} + {length}, is too large"
        ));
    }
    if array.null_count < -1 || array.null_count > length {
        return Err(format!(
            "the Arrow array has null count {} for length {length}",
            array.null_count
        ));
    }
    let buffers = array.n_buffers;
    if buffers < 0 || (buffers > 0 && array.buffers.is_null()) {
        return Err(format!(
            "the Arrow array has {buffers} buffers and a buffer list at {:?}",
            array.buffers
        ));
    }
    // SAFETY: the buffer list is present and, by the C data interface, has n_buffers entries;
    // callers ask only for indices below the counts checked first.
    let buffer = |i: i64| unsafe { *array.buffers.add(i as usize) };
    let rows = length > 0;
    let values = match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary => {
            if buffers != 3 {
                return Err(format!(
                    "the {data_type} array has {buffers} buffers, not 3"
                ));
            }
            if rows && buffer(1).is_null() {
                return Err(format!("the {data_type} array has rows but no offsets"));
            }
            None
        }
        DataType::Utf8View | DataType::BinaryView => {
            // validity, views, the data buffers, then their lengths.
            if buffers < 3 {
                return Err(format!(
                    "the {data_type} array has {buffers} buffers, fewer than 3"
                ));
            }
            if rows && buffer(1).is_null() {
                return Err(format!("the {data_type} array has rows but no views"));
            }
            let data_buffers = buffers - 3;
            if data_buffers > 0 {
                let lengths = buffer(buffers - 1).cast::<i64>();
                if lengths.is_null() {
                    return Err(format!("the {data_type} array has no buffer lengths"));
                }
                for i in 0..data_buffers as usize {
                    // SAFETY: the C data interface gives one length per data buffer here.
                    let len = unsafe { lengths.add(i).read_unaligned() };
                    if len < 0 {
                        return Err(format!(
                            "data buffer {i} of the {data_type} array has length {len}"
                        ));
                    }
                }
            }
            None
        }
        DataType::Dictionary(_, values) => {
            if buffers != 2 {
                return Err(format!("the dictionary array has {buffers} buffers, not 2"));
            }
            if rows && buffer(1).is_null() {
                return Err("the dictionary array has rows but no indices".into());
            }
            // SAFETY: a non-null dictionary is an ArrowArray, by the C data interface.
            let Some(dictionary) = (unsafe { array.dictionary.as_ref() }) else {
                return Err("the dictionary array has no dictionary".into());
            };
            Some((dictionary, values.as_ref()))
        }
        // The key types are checked before any chunk is read: this is a stream's odd chunk.
        other => return Err(format!("keys of type {other}")),
    };
    match values {
        Some((dictionary, values)) => check_raw(dictionary, values),
        None if !array.dictionary.is_null() => {
            Err("the Arrow array has a dictionary but its type is not dictionary-encoded".into())
        }
        None => Ok(()),
    }
}
