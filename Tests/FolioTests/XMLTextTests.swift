import PropertyBased
import FolioTestSupport
import Testing
import Folio
@testable import FolioCore

/// XMLText's writing side: one scan of a value finds what decides its quoting
/// and escaping, and a quoted value is byte for byte what it was.
@Suite struct XMLTextTests {
    /// What the scan must find, byte by byte.
    static func naiveScan(_ bytes: [UInt8]) -> XMLText.ValueScan {
        var found: XMLText.ValueScan = []
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case 0x09, 0x0A, 0x0D, UInt8(ascii: "&"), UInt8(ascii: "<"): found.insert(.reference)
            case UInt8(ascii: "\""): found.insert(.doubleQuote)
            case UInt8(ascii: "'"): found.insert(.singleQuote)
            case ..<0x20: found.insert(.forbidden)
            case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBF && bytes[index + 2] >= 0xBE:
                found.insert(.forbidden)
            default: break
            }
        }
        return found
    }

    /// Random bytes, mostly plain, with the ones that matter at any position (a word's edges included).
    static let pool: [UInt8] =
        Array("abcXYZ 0123456789.,;:!?é".utf8)
        + [0x09, 0x0A, 0x0D, 0x00, 0x1F, 0x22, 0x26, 0x27, 0x3C, 0x3E, 0xEF, 0xBF, 0xBE, 0x7F]
    static let values = Gen.int(in: 0..<pool.count).map { pool[$0] }.array(of: 0...40)

    @Test("one scan finds exactly the bytes that decide quoting and escaping, wherever they are")
    func scanFindsEveryNotableByte() async {
        for text in ["", "plain text of some length", "a\"b", "it's", "\u{FFFE}", "tab\there", "x\u{1}", "12345678<", "1234567&"] {
            let bytes = Array(text.utf8)
            let found = bytes.withUnsafeBufferPointer { XMLText.scan($0) }
            #expect(found == Self.naiveScan(bytes), "\(text)")
        }
        await checkProperty(count: 500, input: Self.values) { bytes in
            bytes.withUnsafeBufferPointer { #expect(XMLText.scan($0) == Self.naiveScan(bytes), "\(bytes)") }
        }
    }

    @Test("a quoted attribute value is written as before: quote chosen by content, references for what needs them")
    func quotedValuesAsBefore() async {
        await checkProperty(count: 500, input: Self.values) { bytes in
            var written = ByteBuffer()
            var reference = ReferenceBuffer()
            bytes.withUnsafeBufferPointer {
                XMLText.appendQuotedAttributeValue($0, to: &written)
                ReferenceDocumentWriter.appendQuotedAttributeValue($0, to: &reference)
            }
            #expect(written.bytes == reference.bytes, "\(bytes)")
        }
    }
}
