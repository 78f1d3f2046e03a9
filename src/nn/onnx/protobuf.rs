//! The protocol-buffer wire format, as much of it as an ONNX file needs: varint and
//! length-delimited fields. Repeated fields are written one entry each (unpacked), which
//! every protobuf reader accepts, and onnx.proto (proto2) declares them so.

/// A message's encoded fields, appended in the order they are added.
#[derive(Clone, Debug, Default)]
pub struct Message(Vec<u8>);

/// Wire types of the fields written here.
const VARINT: u64 = 0;
const LENGTH_DELIMITED: u64 = 2;

impl Message {
    pub fn new() -> Message {
        Message::default()
    }

    /// An integer field (int32, int64 or an enum): negative values as ten-byte two's
    /// complement, as protobuf encodes them.
    pub fn int(mut self, field: u32, value: i64) -> Message {
        self.key(field, VARINT);
        varint(&mut self.0, value as u64);
        self
    }

    pub fn bytes(mut self, field: u32, bytes: &[u8]) -> Message {
        self.key(field, LENGTH_DELIMITED);
        varint(&mut self.0, bytes.len() as u64);
        self.0.extend_from_slice(bytes);
        self
    }

    pub fn string(self, field: u32, text: &str) -> Message {
        self.bytes(field, text.as_bytes())
    }

    pub fn message(self, field: u32, message: &Message) -> Message {
        self.bytes(field, &message.0)
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    fn key(&mut self, field: u32, wire_type: u64) {
        varint(&mut self.0, (field as u64) << 3 | wire_type);
    }
}

/// Seven bits a byte, least significant first; the high bit says another byte follows.
fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

#[cfg(test)]
mod tests {
    use super::Message;

    // Expected bytes from the protobuf encoding guide's examples.
    #[test]
    fn integers_are_varints_after_their_key() {
        assert_eq!(Message::new().int(1, 150).into_bytes(), [0x08, 0x96, 0x01]);
        assert_eq!(Message::new().int(2, 0).into_bytes(), [0x10, 0x00]);
        // A field number past 15 takes a two-byte key.
        assert_eq!(Message::new().int(16, 1).into_bytes(), [0x80, 0x01, 0x01]);
        let mut minus_one = vec![0x08];
        minus_one.extend([0xff; 9]);
        minus_one.push(0x01);
        assert_eq!(Message::new().int(1, -1).into_bytes(), minus_one);
    }

    #[test]
    fn strings_and_messages_are_length_delimited() {
        assert_eq!(
            Message::new().string(2, "testing").into_bytes(),
            b"\x12\x07testing"
        );
        let inner = Message::new().int(1, 150);
        assert_eq!(
            Message::new().message(3, &inner).into_bytes(),
            [0x1a, 0x03, 0x08, 0x96, 0x01]
        );
        // A length past 127 is itself a two-byte varint.
        let long = Message::new().bytes(1, &[7; 200]).into_bytes();
        assert_eq!(long[..3], [0x0a, 0xc8, 0x01]);
        assert_eq!(long.len(), 203);
    }
}
