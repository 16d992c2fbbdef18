/// Shows bytes as text when they are printable ASCII, as hex otherwise.
pub(crate) struct Bytes<'a>(pub(crate) &'a [u8]);

impl core::fmt::Debug for Bytes<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.0.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
            write!(f, "{:?}", core::str::from_utf8(self.0).unwrap_or(""))
        } else {
            f.write_str("0x")?;
            self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
        }
    }
}
