import Foundation
import Folio
@testable import FolioCore

/// The object writer as it was before its per-value costs were cut (commit
/// ad901f1): kept verbatim, on a plain byte array, so tests can prove the
/// fast writer's bytes identical for any graph. Only what an object's line
/// needs; blobs are named but not collected.
enum ReferenceDocumentWriter {
    /// The line ``DocumentWriter/appendObject(row:plan:to:)`` wrote for one object.
    static func line(graph: ObjectGraph, entity entityIndex: Int, row: Int) -> [UInt8] {
        var buffer = ReferenceBuffer()
        let entity = graph.layout.entities[entityIndex]
        let table = graph.tables[entityIndex]
        buffer.append("  <")
        buffer.append(string: entity.name)
        buffer.append(" f.id=\"")
        buffer.append(uint: table.ids[row])
        buffer.append(UInt8(ascii: "\""))
        for (index, pair) in zip(entity.attributes, entity.traits).enumerated() where !pair.1.isTransient {
            appendAttribute(
                pair.0, isExternal: pair.1.isExternal, column: table.columns[index], graph: graph,
                entity: entityIndex, row: row, to: &buffer)
        }
        for slot in 0..<entity.declaredLinkCount {
            let column = table.links[slot]
            let destination = graph.tables[entity.links[slot].destination]
            if column.isToMany {
                let targets = column.many[row]
                if targets.isEmpty && (!column.isOptional || column.isAbsent(row)) { continue }
                appendName(entity.links[slot].name!, to: &buffer)
                for (position, target) in targets.enumerated() {
                    if position > 0 { buffer.append(UInt8(ascii: " ")) }
                    buffer.append(uint: destination.ids[Int(target)])
                }
                buffer.append(UInt8(ascii: "\""))
            } else if column.one[row] >= 0 {
                appendName(entity.links[slot].name!, to: &buffer)
                buffer.append(uint: destination.ids[Int(column.one[row])])
                buffer.append(UInt8(ascii: "\""))
            }
        }
        buffer.append("/>\n")
        return buffer.bytes
    }

    private static func appendName(
        _ name: String, suffix: StaticString = "", quoted: Bool = true,
        to buffer: inout ReferenceBuffer
    ) {
        buffer.append(UInt8(ascii: " "))
        buffer.append(string: name)
        buffer.append(suffix)
        quoted ? buffer.append("=\"") : buffer.append("=")
    }

    private static func appendAttribute(
        _ attribute: Schema.Attribute, isExternal: Bool, column: Column, graph: ObjectGraph,
        entity: Int, row: Int, to buffer: inout ReferenceBuffer
    ) {
        if isExternal {
            let id = graph.tables[entity].ids[row]
            if let lazy = column.blob(at: row), let hash = FileIO.blobHash(in: lazy.name) {
                appendText("\(id)-\(attribute.name)-\(hash).bin", name: attribute.name, to: &buffer)
                return
            }
            let value = column.value(at: row, type: attribute.type)
            if value == .null { return }
            let data = BlobText.bytes(of: value, as: attribute.type)
            appendText(DocumentWriter.blobName(id: id, attribute: attribute.name, data: data), name: attribute.name, to: &buffer)
            return
        }
        switch column {
        case .int(let storage):
            if !storage.nulls.isEmpty, storage.nulls[row] { return }
            appendName(attribute.name, to: &buffer)
            if attribute.type.unsignedMax != nil {
                buffer.append(uint: UInt64(bitPattern: storage.values[row]))
            } else {
                buffer.append(int: storage.values[row])
            }
        case .double(let storage):
            if !storage.nulls.isEmpty, storage.nulls[row] { return }
            appendName(attribute.name, to: &buffer)
            let raw = storage.values[row]
            switch attribute.type {
            case .date: appendDate(Date(timeIntervalSinceReferenceDate: raw), to: &buffer)
            case .float: buffer.append(string: string(Column.float(fromRaw: raw)))
            default: buffer.append(string: string(raw))
            }
        case .bool(let storage):
            if !storage.nulls.isEmpty, storage.nulls[row] { return }
            appendName(attribute.name, to: &buffer)
            storage.values[row] ? buffer.append("true") : buffer.append("false")
        case .string(let storage):
            if !storage.nulls.isEmpty, storage.nulls[row] { return }
            appendText(storage.values[row], name: attribute.name, to: &buffer)
            return
        case .value:
            let value = column.value(at: row, type: attribute.type)
            if value == .null { return }
            appendText(ValueText.encode(value, as: attribute.type), name: attribute.name, to: &buffer)
            return
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private static func appendText(_ text: String, name: String, to buffer: inout ReferenceBuffer) {
        if needsEscaping(text) {
            appendName(name, suffix: ".esc", quoted: false, to: &buffer)
            var escaped = ByteBuffer()
            ValueText.appendJSONEscaped(text, to: &escaped)
            escaped.bytes.withUnsafeBufferPointer { appendQuotedAttributeValue($0, to: &buffer) }
        } else {
            appendName(name, quoted: false, to: &buffer)
            var text = text
            text.withUTF8 { appendQuotedAttributeValue($0, to: &buffer) }
        }
    }

    // MARK: XMLText as it was

    static func needsEscaping(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { return true }
                if byte == 0xEF, index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE { return true }
                index += 1
            }
            return false
        }
    }

    static func appendQuotedAttributeValue(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: inout ReferenceBuffer) {
        let single = bytes.contains(UInt8(ascii: "\"")) && !bytes.contains(UInt8(ascii: "'"))
        let quote = single ? UInt8(ascii: "'") : UInt8(ascii: "\"")
        buffer.append(quote)
        var runStart = 0
        for index in 0..<bytes.count {
            let replacement: StaticString
            switch bytes[index] {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: "\"") where !single: replacement = "&quot;"
            case 0x09: replacement = "&#9;"
            case 0x0A: replacement = "&#10;"
            case 0x0D: replacement = "&#13;"
            default: continue
            }
            buffer.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            buffer.append(replacement)
            runStart = index + 1
        }
        buffer.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        buffer.append(quote)
    }

    // MARK: DoubleText as it was

    static func string(_ value: Double) -> String {
        if value.isNaN {
            return value.bitPattern == Double.nan.bitPattern ? "nan" : "nan(0x" + hex(value.bitPattern, width: 16) + ")"
        }
        return value.description
    }

    static func string(_ value: Float) -> String {
        if value.isNaN {
            return value.bitPattern == Float.nan.bitPattern ? "nan" : "nan(0x" + hex(UInt64(value.bitPattern), width: 8) + ")"
        }
        return value.description
    }

    static func plainFraction(_ fraction: Double) -> String {
        let text = fraction.description
        guard let e = text.firstIndex(of: "e") else { return String(text.dropFirst()) }
        let exponent = Int(text[text.index(after: e)...]) ?? 0
        let digits = text[..<e].filter { $0 != "." }
        return "." + String(repeating: "0", count: max(0, -exponent - 1)) + digits
    }

    private static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // MARK: DateText as it was

    static func dateString(_ date: Date) -> String {
        var buffer = ReferenceBuffer()
        appendDate(date, to: &buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    static func appendDate(_ date: Date, to buffer: inout ReferenceBuffer) {
        let interval = date.timeIntervalSinceReferenceDate
        let whole = interval.rounded(.down)
        let fraction = interval - whole
        guard interval.isFinite, abs(interval) < 3.0e11,
            (whole + fraction).bitPattern == interval.bitPattern, fraction < 1
        else {
            buffer.append(UInt8(ascii: "@"))
            buffer.append(string: string(interval))
            return
        }
        let seconds = Int64(whole)
        let days = floorDiv(seconds, 86_400) + 11_323
        let secondOfDay = seconds - floorDiv(seconds, 86_400) * 86_400
        let (year, month, day) = civil(fromDays: days)
        guard (1...9999).contains(year) else {
            buffer.append(UInt8(ascii: "@"))
            buffer.append(string: string(interval))
            return
        }
        let fractionText = fraction != 0 ? plainFraction(fraction) : ""
        guard fractionText.utf8.count <= DateText.maximumFractionDigits + 1 else {
            buffer.append(UInt8(ascii: "@"))
            buffer.append(string: string(interval))
            return
        }
        buffer.append(padded: year, width: 4)
        buffer.append(UInt8(ascii: "-"))
        buffer.append(padded: month, width: 2)
        buffer.append(UInt8(ascii: "-"))
        buffer.append(padded: day, width: 2)
        buffer.append(UInt8(ascii: "T"))
        buffer.append(padded: secondOfDay / 3600, width: 2)
        buffer.append(UInt8(ascii: ":"))
        buffer.append(padded: secondOfDay / 60 % 60, width: 2)
        buffer.append(UInt8(ascii: ":"))
        buffer.append(padded: secondOfDay % 60, width: 2)
        buffer.append(string: fractionText)
        buffer.append(UInt8(ascii: "Z"))
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// ``ByteBuffer`` as it was: byte by byte.
struct ReferenceBuffer {
    var bytes: [UInt8] = []

    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(string: String) { bytes.append(contentsOf: Array(string.utf8)) }

    mutating func append(int value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            append(uint: value == .min ? UInt64(Int64.max) + 1 : UInt64(-value))
        } else {
            append(uint: UInt64(value))
        }
    }

    mutating func append(uint value: UInt64) {
        var digits: [UInt8] = []
        var rest = value
        repeat {
            digits.append(UInt8(truncatingIfNeeded: rest % 10) &+ 0x30)
            rest /= 10
        } while rest > 0
        bytes.append(contentsOf: digits.reversed())
    }

    mutating func append(padded value: Int64, width: Int) {
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: rest / divisor) &+ 0x30)
            rest %= divisor
            divisor /= 10
        }
    }
}
