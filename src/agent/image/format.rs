//! What an image's bytes are: the format from its magic bytes, its
//! dimensions from its header, and whether the file is whole (a structure
//! that ends where the format says it ends). Headers only — nothing is
//! decoded, so a check costs microseconds whatever the image's size.

/// The image formats every supported provider takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// GIF (87a or 89a).
    Gif,
    /// WebP (lossy, lossless or extended).
    WebP,
}

impl Format {
    /// The IANA media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
            Format::Gif => "image/gif",
            Format::WebP => "image/webp",
        }
    }

    /// The name users know it by.
    pub fn name(self) -> &'static str {
        match self {
            Format::Png => "PNG",
            Format::Jpeg => "JPEG",
            Format::Gif => "GIF",
            Format::WebP => "WebP",
        }
    }

    /// The format a media type names (`image/jpg` taken as JPEG).
    pub fn from_media_type(media_type: &str) -> Option<Format> {
        match media_type.trim().to_ascii_lowercase().as_str() {
            "image/png" => Some(Format::Png),
            "image/jpeg" | "image/jpg" => Some(Format::Jpeg),
            "image/gif" => Some(Format::Gif),
            "image/webp" => Some(Format::WebP),
            _ => None,
        }
    }
}

/// What the header says about an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The format.
    pub format: Format,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Why bytes are not a usable image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// No supported format's magic bytes.
    NotAnImage,
    /// The format is known but the file ends before its structure does.
    Truncated(Format),
}

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The format of `bytes` by its magic bytes alone.
pub fn sniff(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(PNG_MAGIC) {
        Some(Format::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(Format::Jpeg)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(Format::Gif)
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(Format::WebP)
    } else {
        None
    }
}

/// The header of a whole image, or why `bytes` are not one.
pub fn read(bytes: &[u8]) -> Result<Header, Problem> {
    let format = sniff(bytes).ok_or(Problem::NotAnImage)?;
    let size = match format {
        Format::Png => png(bytes),
        Format::Jpeg => jpeg(bytes),
        Format::Gif => gif(bytes),
        Format::WebP => webp(bytes),
    };
    let (width, height) = size.ok_or(Problem::Truncated(format))?;
    Ok(Header {
        format,
        width,
        height,
    })
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn be16(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 2)?;
    Some(u32::from(u16::from_be_bytes([b[0], b[1]])))
}

fn le16(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 2)?;
    Some(u32::from(u16::from_le_bytes([b[0], b[1]])))
}

fn le24(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 3)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], 0]))
}

/// PNG: `IHDR` first, then chunks (length, type, data, CRC) that must
/// reach an `IEND` inside the file.
fn png(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let size = (be32(bytes, 16)?, be32(bytes, 20)?);
    let mut at = PNG_MAGIC.len();
    loop {
        let len = usize::try_from(be32(bytes, at)?).ok()?;
        let kind = bytes.get(at + 4..at + 8)?;
        let end = at.checked_add(12)?.checked_add(len)?;
        if end > bytes.len() {
            return None;
        }
        if kind == b"IEND" {
            return Some(size);
        }
        at = end;
    }
}

/// JPEG: segments from `SOI` up to the first start of frame (the size),
/// and an `EOI` marker at the end (trailing zero padding allowed).
fn jpeg(bytes: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    let size = loop {
        // Markers may be preceded by fill bytes 0xFF.
        while bytes.get(at) == Some(&0xFF) && bytes.get(at + 1) == Some(&0xFF) {
            at += 1;
        }
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        let marker = *bytes.get(at + 1)?;
        let len = usize::try_from(be16(bytes, at + 2)?).ok()?;
        let is_frame = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_frame {
            break (be16(bytes, at + 7)?, be16(bytes, at + 5)?);
        }
        if marker == 0xDA || len < 2 {
            // Scan data before any frame header: not a usable image.
            return None;
        }
        at += 2 + len;
    };
    let end = bytes.iter().rposition(|&b| b != 0)?;
    (end >= 1 && bytes[end - 1..=end] == [0xFF, 0xD9]).then_some(size)
}

/// GIF: the logical screen size, and the `;` trailer at the end.
fn gif(bytes: &[u8]) -> Option<(u32, u32)> {
    let size = (le16(bytes, 6)?, le16(bytes, 8)?);
    (bytes.len() > 13 && bytes.last() == Some(&0x3B)).then_some(size)
}

/// WebP: a RIFF container whose stated size fits in the file, with the
/// size in its first chunk (`VP8 `, `VP8L` or `VP8X`).
fn webp(bytes: &[u8]) -> Option<(u32, u32)> {
    let riff = usize::try_from(u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?)).ok()?;
    if riff.checked_add(8)? > bytes.len() {
        return None;
    }
    match bytes.get(12..16)? {
        b"VP8 " => {
            if bytes.get(23..26)? != [0x9D, 0x01, 0x2A] {
                return None;
            }
            Some((le16(bytes, 26)? & 0x3FFF, le16(bytes, 28)? & 0x3FFF))
        }
        b"VP8L" => {
            if *bytes.get(20)? != 0x2F {
                return None;
            }
            let bits = u32::from_le_bytes(bytes.get(21..25)?.try_into().ok()?);
            Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        b"VP8X" => Some((le24(bytes, 24)? + 1, le24(bytes, 27)? + 1)),
        _ => None,
    }
}

/// Tiny well-formed images of every format, for tests here and in the
/// integration suite (which builds its own with the same layout).
#[cfg(test)]
pub(crate) mod samples {
    /// A PNG of `width` × `height` (IHDR, one empty IDAT, IEND; CRCs are not
    /// checked by anyone, so they are zero).
    pub fn png(width: u32, height: u32) -> Vec<u8> {
        let mut out = super::PNG_MAGIC.to_vec();
        let mut chunk = |kind: &[u8], data: &[u8]| {
            out.extend((data.len() as u32).to_be_bytes());
            out.extend(kind);
            out.extend(data);
            out.extend([0; 4]);
        };
        let mut ihdr = Vec::new();
        ihdr.extend(width.to_be_bytes());
        ihdr.extend(height.to_be_bytes());
        ihdr.extend([8, 6, 0, 0, 0]);
        chunk(b"IHDR", &ihdr);
        chunk(b"IDAT", &[0x78, 0x9C, 0x03, 0x00]);
        chunk(b"IEND", &[]);
        out
    }

    /// A JPEG of `width` × `height`: SOI, an APP0, SOF0, SOS, EOI.
    pub fn jpeg(width: u16, height: u16) -> Vec<u8> {
        let mut out = vec![0xFF, 0xD8];
        out.extend([0xFF, 0xE0, 0x00, 0x10]);
        out.extend(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        out.extend([0xFF, 0xC0, 0x00, 0x0B, 0x08]);
        out.extend(height.to_be_bytes());
        out.extend(width.to_be_bytes());
        out.extend([0x01, 0x01, 0x11, 0x00]);
        out.extend([0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]);
        out.extend([0x12, 0x34]);
        out.extend([0xFF, 0xD9]);
        out
    }

    /// A GIF89a of `width` × `height` with only its trailer.
    pub fn gif(width: u16, height: u16) -> Vec<u8> {
        let mut out = b"GIF89a".to_vec();
        out.extend(width.to_le_bytes());
        out.extend(height.to_le_bytes());
        out.extend([0, 0, 0, 0x3B]);
        out
    }

    /// A lossless WebP of `width` × `height` (VP8L header only).
    pub fn webp(width: u32, height: u32) -> Vec<u8> {
        let bits = (width - 1) | ((height - 1) << 14);
        let mut chunk = vec![0x2F];
        chunk.extend(bits.to_le_bytes());
        let mut out = b"RIFF".to_vec();
        out.extend(((4 + 8 + chunk.len()) as u32).to_le_bytes());
        out.extend(b"WEBPVP8L");
        out.extend((chunk.len() as u32).to_le_bytes());
        out.extend(chunk);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::samples;
    use super::*;

    #[test]
    fn every_format_reads_its_size() {
        let read_size = |bytes: &[u8]| read(bytes).map(|h| (h.format, h.width, h.height));
        assert_eq!(read_size(&samples::png(3, 2)), Ok((Format::Png, 3, 2)));
        assert_eq!(read_size(&samples::jpeg(4, 5)), Ok((Format::Jpeg, 4, 5)));
        assert_eq!(read_size(&samples::gif(6, 7)), Ok((Format::Gif, 6, 7)));
        assert_eq!(read_size(&samples::webp(8, 9)), Ok((Format::WebP, 8, 9)));
    }

    #[test]
    fn a_file_cut_short_is_truncated_at_every_length() {
        for (format, whole) in [
            (Format::Png, samples::png(3, 2)),
            (Format::Jpeg, samples::jpeg(4, 5)),
            (Format::Gif, samples::gif(6, 7)),
            (Format::WebP, samples::webp(8, 9)),
        ] {
            // Every cut that keeps the magic bytes is a truncated image.
            for cut in 12..whole.len() {
                assert_eq!(
                    read(&whole[..cut]),
                    Err(Problem::Truncated(format)),
                    "{format:?} cut at {cut}"
                );
            }
        }
    }

    #[test]
    fn text_is_not_an_image() {
        assert_eq!(read(b"hello, I am a PNG"), Err(Problem::NotAnImage));
        assert_eq!(read(b""), Err(Problem::NotAnImage));
    }
}
