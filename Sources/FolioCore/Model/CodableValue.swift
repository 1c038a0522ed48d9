import Foundation

/// Stores a `Codable` struct or enum as a composite value (docs/FORMAT.md, `codable`):
/// a tree of null, bool, int, uint (only above `Int64.max`), double, string, array
/// and dictionary — exactly the shape the type's own `Codable` conformance writes.
///
/// A direct `Encoder`/`Decoder` pair over `Value`, not a detour through JSON: JSON
/// has no `UInt64.max`, no NaN or infinity, and only Double precision for numbers,
/// so the detour lost values. The types JSONEncoder special-cases (`Data`, `URL`,
/// `Decimal`) are stored as it stored them, so documents the detour wrote still read.
enum CodableValue {
    /// The stored form of a Codable value. Throws only what the type's own `encode(to:)` throws.
    static func encode<T: Encodable>(_ value: T) throws -> Value {
        let root = Slot()
        try Slot.encode(value, into: root, codingPath: [])
        return root.value
    }

    /// Reads a Codable value back; throws DecodingError when it doesn't decode as T.
    static func decode<T: Decodable>(_ type: T.Type, from value: Value) throws -> T {
        try ValueDecoder(value: value, codingPath: [], lenient: false).decode(type)
    }

    /// Reads as much as it can: missing keys and mismatched primitives become zero values; nil only when even that fails.
    ///
    /// For documents written before a Codable type gained a field: the old fields
    /// read back and the new one starts at zero, as a new attribute would.
    static func decodeLeniently<T: Decodable>(_ type: T.Type, from value: Value) -> T? {
        try? ValueDecoder(value: value, codingPath: [], lenient: true).decode(type)
    }
}

/// A coding key for array indices and `super`, spelled as JSONEncoder spells them.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) { (stringValue, self.intValue) = ("Index \(intValue)", intValue) }
    static let `super` = AnyKey(stringValue: "super")
}

// MARK: - Encoding

/// One node of the tree being encoded, by reference, so containers handed out
/// earlier (nested ones, a keyed container asked for twice) write into it later.
private final class Slot {
    var scalar: Value?
    var keyed: [String: Slot]?
    var unkeyed: [Slot]?

    /// An empty encoding reads as `{}`, as JSONEncoder writes it.
    var value: Value {
        if let keyed { return .dictionary(keyed.mapValues(\.value)) }
        if let unkeyed { return .array(unkeyed.map(\.value)) }
        return scalar ?? .dictionary([:])
    }

    func set(_ value: Value) { (scalar, keyed, unkeyed) = (value, nil, nil) }

    /// The slot under `key`: a fresh one to overwrite, or the existing one for nested containers.
    func child(_ key: String, reusing: Bool = false) -> Slot {
        if reusing, let existing = keyed?[key] { return existing }
        let child = Slot()
        keyed?[key] = child
        return child
    }

    /// Encodes any value into `slot`. The types JSONEncoder special-cases are stored as
    /// it stores them — Data as base64, URL as its absolute string — and Decimal as its
    /// exact text: its own Codable form on Linux is a keyed struct of mantissa words,
    /// and as a number it would round to a Double.
    static func encode<T: Encodable>(_ value: T, into slot: Slot, codingPath: [any CodingKey]) throws {
        switch value {
        case let data as Data: slot.set(.string(data.base64EncodedString()))
        case let url as URL: slot.set(.string(url.absoluteString))
        case let decimal as Decimal: slot.set(.string(decimal.description))
        default: try value.encode(to: ValueEncoder(slot: slot, codingPath: codingPath))
        }
    }
}

/// Where the next value goes: the slot itself (single value) or a new element (unkeyed).
/// The primitive `encode` methods both container kinds require are written once, here.
private protocol ValueSink {
    func target() -> (slot: Slot, codingPath: [any CodingKey])
}

extension ValueSink {
    private func put(_ value: Value) { target().slot.set(value) }
    /// Unsigned values are `.int` when they fit, so a composite tree has one form per number.
    private func put<U: UnsignedInteger>(unsigned value: U) {
        put(Int64(exactly: value).map(Value.int) ?? .uint(UInt64(truncatingIfNeeded: value)))
    }

    func encodeNil() { put(.null) }
    func encode(_ value: Bool) { put(.bool(value)) }
    func encode(_ value: String) { put(.string(value)) }
    func encode(_ value: Double) { put(.double(value)) }
    func encode(_ value: Float) { put(.double(Double(value))) }
    func encode(_ value: Int) { put(.int(Int64(value))) }
    func encode(_ value: Int8) { put(.int(Int64(value))) }
    func encode(_ value: Int16) { put(.int(Int64(value))) }
    func encode(_ value: Int32) { put(.int(Int64(value))) }
    func encode(_ value: Int64) { put(.int(value)) }
    func encode(_ value: UInt) { put(unsigned: value) }
    func encode(_ value: UInt8) { put(unsigned: value) }
    func encode(_ value: UInt16) { put(unsigned: value) }
    func encode(_ value: UInt32) { put(unsigned: value) }
    func encode(_ value: UInt64) { put(unsigned: value) }
    func encode<T: Encodable>(_ value: T) throws {
        let (slot, codingPath) = target()
        try Slot.encode(value, into: slot, codingPath: codingPath)
    }
}

/// Encodes into one slot; containers write back into it.
private struct ValueEncoder: Encoder, SingleValueEncodingContainer, ValueSink {
    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func target() -> (slot: Slot, codingPath: [any CodingKey]) { (slot, codingPath) }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if slot.keyed == nil { (slot.scalar, slot.keyed, slot.unkeyed) = (nil, [:], nil) }
        return KeyedEncodingContainer(KeyedWriter<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if slot.unkeyed == nil { (slot.scalar, slot.keyed, slot.unkeyed) = (nil, nil, []) }
        return UnkeyedWriter(slot: slot, codingPath: codingPath)
    }
}

/// Writes each key into its own child slot, through a `ValueEncoder` so every type goes one way.
private struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    let codingPath: [any CodingKey]

    private func at(_ key: any CodingKey, reusing: Bool = false) -> ValueEncoder {
        ValueEncoder(slot: slot.child(key.stringValue, reusing: reusing), codingPath: codingPath + [key])
    }

    func encodeNil(forKey key: Key) { at(key).encodeNil() }
    func encode(_ value: Bool, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: String, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: Double, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: Float, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: Int, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: Int8, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: Int16, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: Int32, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: Int64, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: UInt, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: UInt8, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: UInt16, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: UInt32, forKey key: Key) { at(key).encode(value) }
    func encode(_ value: UInt64, forKey key: Key) { at(key).encode(value) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try at(key).encode(value) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        at(key, reusing: true).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        at(key, reusing: true).unkeyedContainer()
    }
    func superEncoder() -> any Encoder { at(AnyKey.super) }
    func superEncoder(forKey key: Key) -> any Encoder { at(key) }
}

/// Appends each value as a new element slot.
private struct UnkeyedWriter: UnkeyedEncodingContainer, ValueSink {
    let slot: Slot
    let codingPath: [any CodingKey]
    var count: Int { slot.unkeyed?.count ?? 0 }

    func target() -> (slot: Slot, codingPath: [any CodingKey]) {
        let key = AnyKey(intValue: count)
        let element = Slot()
        slot.unkeyed?.append(element)
        return (element, codingPath + [key])
    }
    private func next() -> ValueEncoder {
        let (slot, codingPath) = target()
        return ValueEncoder(slot: slot, codingPath: codingPath)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: type)
    }
    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
    func superEncoder() -> any Encoder { next() }
}

// MARK: - Decoding

/// Where the next value comes from: the value itself (single value) or the next element
/// (unkeyed). The primitive `decode` methods both container kinds require are written once, here.
private protocol ValueSource {
    func next<T>(_ read: (ValueDecoder) throws -> T) throws -> T
}

extension ValueSource {
    func decode(_ type: Bool.Type) throws -> Bool {
        try next { try $0.scalar("a Bool", false) { if case .bool(let bool) = $0 { bool } else { nil } } }
    }
    func decode(_ type: String.Type) throws -> String { try next { try $0.text("a String", "") { $0 } } }
    func decode(_ type: Double.Type) throws -> Double { try next { try $0.floatingPoint(type) } }
    func decode(_ type: Float.Type) throws -> Float { try next { try $0.floatingPoint(type) } }
    func decode(_ type: Int.Type) throws -> Int { try next { try $0.integer(type) } }
    func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.integer(type) } }
    func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.integer(type) } }
    func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.integer(type) } }
    func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.integer(type) } }
    func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.integer(type) } }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.integer(type) } }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.integer(type) } }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.integer(type) } }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.integer(type) } }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try next { try $0.decodeAny(type) } }
}

/// Decodes one value of the tree. Strict by default; lenient (`decodeLeniently`)
/// reads a missing or mismatched primitive as its zero and a missing or mismatched
/// container as an empty one. Numbers are read leniently in both modes: old documents
/// and the text format store an integral Double as an int and a Decimal as a number.
private struct ValueDecoder: Decoder, SingleValueDecodingContainer, ValueSource {
    let value: Value
    let codingPath: [any CodingKey]
    let lenient: Bool
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func next<T>(_ read: (ValueDecoder) throws -> T) throws -> T { try read(self) }
    func at(_ value: Value, _ key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: value, codingPath: codingPath + [key], lenient: lenient)
    }
    func singleValueContainer() -> any SingleValueDecodingContainer { self }
    func decodeNil() -> Bool { value == .null }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if case .dictionary(let entries) = value { return KeyedDecodingContainer(KeyedReader<Key>(entries, self)) }
        if lenient { return KeyedDecodingContainer(KeyedReader<Key>([:], self)) }
        throw failure([String: Value].self, "a keyed container (dictionary)")
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if case .array(let elements) = value { return UnkeyedReader(elements, self) }
        if lenient { return UnkeyedReader([], self) }
        throw failure([Value].self, "an unkeyed container (array)")
    }

    /// Reads the special types in their stored form (see `Slot.encode`; UUID too, so that a
    /// lenient read of a missing one is the zero UUID); every other type decodes itself.
    func decodeAny<T: Decodable>(_ type: T.Type) throws -> T {
        let zeroUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        let special: Any? =
            switch type {
            case is Data.Type: try text("base64 data", Data()) { Data(base64Encoded: $0) }
            case is URL.Type: try text("a URL string", URL(fileURLWithPath: "/")) { URL(string: $0) }
            case is UUID.Type: try text("a UUID string", zeroUUID) { UUID(uuidString: $0) }
            case is Decimal.Type: try scalar("a Decimal", Decimal(0), Self.decimal)
            default: nil
            }
        if let special, let typed = special as? T { return typed }  // unwrapped first: nil casts to any Optional T
        return try T(from: self)
    }

    /// A Decimal from its text (all of it must parse) or from a number, as the JSON detour stored it.
    private static func decimal(_ value: Value) -> Decimal? {
        switch value {
        case .string(let text):
            let scanner = Scanner(string: text)
            scanner.charactersToBeSkipped = nil
            return scanner.scanDecimal().flatMap { scanner.isAtEnd ? $0 : nil }
        case .int(let int): return Decimal(int)
        case .uint(let uint): return Decimal(uint)
        case .double(let double): return Decimal(double)
        default: return nil
        }
    }

    /// Any integer type from an int, a uint, or an integral double, if it fits.
    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        try scalar("\(I.self)", 0) {
            switch $0 {
            case .int(let v): I(exactly: v)
            case .uint(let v): I(exactly: v)
            case .double(let v): I(exactly: v)
            default: nil
            }
        }
    }

    /// Any floating-point type from any number (rounded to the nearest, as JSONDecoder does).
    func floatingPoint<F: BinaryFloatingPoint>(_ type: F.Type) throws -> F {
        try scalar("\(F.self)", 0) {
            switch $0 {
            case .int(let v): F(v)
            case .uint(let v): F(v)
            case .double(let v): F(v)
            default: nil
            }
        }
    }

    /// A string, parsed.
    func text<T>(_ expected: String, _ zero: T, _ parse: (String) -> T?) throws -> T {
        try scalar(expected, zero) { if case .string(let string) = $0 { parse(string) } else { nil } }
    }

    /// Converts the value; failing that, `zero` when lenient, else the error that says why not:
    /// a number or text of the right kind that doesn't fit or parse is `dataCorrupted`.
    func scalar<T>(_ expected: String, _ zero: T, _ convert: (Value) -> T?) throws -> T {
        if let result = convert(value) { return result }
        if lenient { return zero }
        let rightKind =
            switch value {
            case .int, .uint, .double: T.self is any Numeric.Type
            case .string: T.self is Data.Type || T.self is URL.Type || T.self is UUID.Type || T.self is Decimal.Type
            default: false
            }
        if rightKind { throw DecodingError.dataCorrupted(context("Expected \(expected)", ", which does not fit or parse")) }
        throw failure(T.self, expected)
    }

    func failure(_ type: Any.Type, _ expected: String) -> DecodingError {
        let context = context("Expected \(expected)")
        return value == .null ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    /// Names what was found, cut short: a composite value's text may be huge.
    func context(_ message: String, _ note: String = "") -> DecodingError.Context {
        let found = String(describing: value)
        let shown = found.count <= 60 ? found : found.prefix(60) + "…"
        return DecodingError.Context(codingPath: codingPath, debugDescription: "\(message) but found \(shown)\(note).")
    }
}

/// Reads a dictionary; a missing key throws `keyNotFound`, or reads as null when lenient.
private struct KeyedReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let entries: [String: Value]
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { entries.keys.compactMap(Key.init(stringValue:)) }

    init(_ entries: [String: Value], _ decoder: ValueDecoder) { (self.entries, self.decoder) = (entries, decoder) }
    func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

    private func at(_ key: Key) throws -> ValueDecoder {
        if let value = entries[key.stringValue] { return decoder.at(value, key) }
        if decoder.lenient { return decoder.at(.null, key) }
        throw DecodingError.keyNotFound(
            key,
            DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value for key \"\(key.stringValue)\"."))
    }

    func decodeNil(forKey key: Key) throws -> Bool { try at(key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try at(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try at(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try at(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try at(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try at(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try at(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try at(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try at(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try at(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try at(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try at(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try at(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try at(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try at(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try at(key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try at(key).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try at(key).unkeyedContainer() }
    /// A missing `super` reads as null, as in JSONDecoder.
    func superDecoder() -> any Decoder { decoder.at(entries[AnyKey.super.stringValue] ?? .null, AnyKey.super) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try at(key) }
}

/// Reads an array in order; an element is consumed only when it decodes. A class, so the
/// shared `decode` methods can advance `currentIndex` without being `mutating`.
private final class UnkeyedReader: UnkeyedDecodingContainer, ValueSource {
    let elements: [Value]
    let decoder: ValueDecoder
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(_ elements: [Value], _ decoder: ValueDecoder) { (self.elements, self.decoder) = (elements, decoder) }

    func next<T>(_ read: (ValueDecoder) throws -> T) throws -> T {
        let key = AnyKey(intValue: currentIndex)
        guard !isAtEnd || decoder.lenient else {
            throw DecodingError.valueNotFound(
                T.self,
                DecodingError.Context(
                    codingPath: codingPath + [key], debugDescription: "Unkeyed container is at end (\(elements.count) elements)."))
        }
        let result = try read(decoder.at(isAtEnd ? .null : elements[currentIndex], key))
        currentIndex += 1
        return result
    }

    func decodeNil() throws -> Bool {
        let isNil = try next { $0.decodeNil() }
        if !isNil { currentIndex -= 1 }  // not null: the element is still there to decode
        return isNil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next { try $0.container(keyedBy: type) }
    }
    func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next { try $0.unkeyedContainer() } }
    func superDecoder() throws -> any Decoder { try next { $0 } }
}
