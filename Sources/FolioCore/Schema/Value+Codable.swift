import Foundation

/// `Value` encodes as a one-key object naming its case (`{"int": 5}`), or `null`.
///
/// Codable lets a `Value` sit in Foundation's `#Predicate` (over `[String: Value]`)
/// and in JSON a program writes; a package uses ``ValueText`` instead.
extension Value: Codable {
    private enum Key: String, CodingKey {
        case bool, int, uint, double, float, string, date, data, uuid, url, decimal, array, set, dictionary
    }

    public func encode(to encoder: any Encoder) throws {
        if case .null = self {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
            return
        }
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .null: break
        case .bool(let v): try container.encode(v, forKey: .bool)
        case .int(let v): try container.encode(v, forKey: .int)
        case .uint(let v): try container.encode(v, forKey: .uint)
        case .double(let v): try container.encode(DoubleText.string(v), forKey: .double)
        case .float(let v): try container.encode(DoubleText.string(v), forKey: .float)
        case .string(let v): try container.encode(v, forKey: .string)
        case .date(let v): try container.encode(DateText.string(v), forKey: .date)
        case .data(let v): try container.encode(v, forKey: .data)
        case .uuid(let v): try container.encode(v, forKey: .uuid)
        case .url(let v): try container.encode(v, forKey: .url)
        case .decimal(let v): try container.encode(v, forKey: .decimal)
        case .array(let v): try container.encode(v, forKey: .array)
        case .set(let v): try container.encode(v, forKey: .set)
        case .dictionary(let v): try container.encode(v, forKey: .dictionary)
        }
    }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() {
            self = .null
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        guard let key = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a Value is one key naming its type"))
        }
        func text(_ parse: (String) -> Value?) throws -> Value {
            let string = try container.decode(String.self, forKey: key)
            guard let value = parse(string) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "'\(string)' is not a \(key.rawValue)")
            }
            return value
        }
        switch key {
        case .bool: self = .bool(try container.decode(Bool.self, forKey: key))
        case .int: self = .int(try container.decode(Int64.self, forKey: key))
        case .uint: self = .uint(try container.decode(UInt64.self, forKey: key))
        case .double: self = try text { ValueText.decodeScalar($0, as: .double) }
        case .float: self = try text { ValueText.decodeScalar($0, as: .float) }
        case .string: self = .string(try container.decode(String.self, forKey: key))
        case .date: self = try text { ValueText.decodeScalar($0, as: .date) }
        case .data: self = .data(try container.decode(Data.self, forKey: key))
        case .uuid: self = .uuid(try container.decode(UUID.self, forKey: key))
        case .url: self = .url(try container.decode(URL.self, forKey: key))
        case .decimal: self = .decimal(try container.decode(Decimal.self, forKey: key))
        case .array: self = .array(try container.decode([Value].self, forKey: key))
        case .set: self = .set(try container.decode([Value].self, forKey: key))
        case .dictionary: self = .dictionary(try container.decode([String: Value].self, forKey: key))
        }
    }
}
