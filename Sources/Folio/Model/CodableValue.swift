import Foundation

/// Stores a `Codable` struct or enum as a composite value: what it encodes to,
/// as nested dictionaries, arrays and scalars (docs/FORMAT.md, `codable`).
///
/// The detour through JSON keeps the shape exactly as the type's own
/// `Codable` conformance writes it, so any `Codable` type works unchanged.
enum CodableValue {
    /// The stored form of a `Codable` value; `nil` when it cannot be encoded.
    static func encode<T: Encodable>(_ value: T) -> Value? {
        guard let json = try? JSONEncoder().encode(value),
              let node = try? JSONDecoder().decode(JSONNode.self, from: json) else { return nil }
        return node.value
    }

    /// Reads a `Codable` value back; `nil` when the stored form does not decode as `T`.
    static func decode<T: Decodable>(_ type: T.Type, from value: Value) -> T? {
        guard let node = JSONNode(value), let json = try? JSONEncoder().encode(node) else { return nil }
        return try? JSONDecoder().decode(T.self, from: json)
    }
}

/// A JSON value, read without a schema: what a `Codable` type encoded to.
private enum JSONNode: Codable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONNode])
    case object([String: JSONNode])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONNode].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONNode].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    var value: Value {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .int(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .array(let nodes): return .array(nodes.map(\.value))
        case .object(let nodes): return .dictionary(nodes.mapValues(\.value))
        }
    }

    init?(_ value: Value) {
        switch value {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .uint(let value): guard let exact = Int64(exactly: value) else { return nil }; self = .int(exact)
        case .double(let value): self = .double(value)
        case .float(let value): self = .double(Double(value))
        case .string(let value): self = .string(value)
        case .array(let values), .set(let values):
            var nodes: [JSONNode] = []
            for value in values {
                guard let node = JSONNode(value) else { return nil }
                nodes.append(node)
            }
            self = .array(nodes)
        case .dictionary(let values):
            var nodes: [String: JSONNode] = [:]
            for (key, value) in values {
                guard let node = JSONNode(value) else { return nil }
                nodes[key] = node
            }
            self = .object(nodes)
        case .date, .data, .uuid, .url, .decimal:
            return nil
        }
    }
}
