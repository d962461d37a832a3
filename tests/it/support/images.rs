//! Tiny well-formed images made in the test (no binary fixtures): a PNG
//! and a JPEG of any size, laid out as the formats require (CRCs are not
//! checked by anyone, so they are zero).

/// The PNG signature.
const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A PNG of `width` × `height`: IHDR, one IDAT, IEND.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let mut out = PNG_MAGIC.to_vec();
    let mut chunk = |kind: &[u8], data: &[u8]| {
        out.extend((data.len() as u32).to_be_bytes());
        out.extend(kind);
        out.extend(data);
        out.extend([0; 4]);
    };
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &[0x78, 0x9C, 0x63, 0x60, 0x00, 0x00]);
    chunk(b"IEND", &[]);
    out
}

/// A baseline JPEG of `width` × `height`: SOI, SOF0, SOS, EOI.
pub fn jpeg(width: u16, height: u16) -> Vec<u8> {
    let mut out = vec![0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08];
    out.extend(height.to_be_bytes());
    out.extend(width.to_be_bytes());
    out.extend([0x01, 0x01, 0x11, 0x00]);
    out.extend([0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]);
    out.extend([0x12, 0x34, 0xFF, 0xD9]);
    out
}

/// `bytes` in standard base64, as every wire format carries an image.
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
