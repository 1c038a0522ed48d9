/// The XML form of a schema: the `<schema>` element inside every package's
/// document, and the whole of a standalone schema file.
///
/// ```xml
/// <schema>
///   <entity name="Animal">
///     <attribute name="name" type="string"/>
///     <relationship name="category" destination="AnimalCategory" inverse="animals" delete-rule="nullify"/>
///     <index attributes="name"/>
///   </entity>
/// </schema>
/// ```
enum SchemaXML {
    /// The schema's element alone, for comparing two schemas as they are written.
    static func bytes(_ schema: Schema) -> [UInt8] {
        var buffer = ByteBuffer()
        append(schema, indent: 0, to: &buffer)
        return buffer.bytes
    }

    static func append(_ schema: Schema, indent: Int, to buffer: inout ByteBuffer) {
        let pad = String(repeating: " ", count: indent)
        buffer.append(string: pad + "<schema")
        if let version = schema.declaredVersion { appendAttribute("version", version.description, to: &buffer) }
        buffer.append(">\n")
        for entity in schema.entities {
            buffer.append(string: pad + "  <entity")
            appendAttribute("name", entity.name, to: &buffer)
            if let original = entity.originalName { appendAttribute("original-name", original, to: &buffer) }
            if let superentity = entity.superentity { appendAttribute("superentity", superentity, to: &buffer) }
            if entity.attributes.isEmpty && entity.relationships.isEmpty {
                buffer.append("/>\n")
                continue
            }
            buffer.append(">\n")
            for attribute in entity.attributes {
                buffer.append(string: pad + "    <attribute")
                appendAttribute("name", attribute.name, to: &buffer)
                appendAttribute("type", attribute.type.description, to: &buffer)
                if attribute.isOptional { appendAttribute("optional", "true", to: &buffer) }
                for option in Schema.Attribute.Option.allCases where attribute.options.contains(option) {
                    appendAttribute(optionName(option), "true", to: &buffer)
                }
                if let value = attribute.defaultStoredValue, value != .null {
                    let text = ValueText.encode(value, as: attribute.type)
                    if XMLText.needsEscaping(text) {
                        var escaped = ByteBuffer()
                        ValueText.appendJSONEscaped(text, to: &escaped)
                        appendAttribute("default.esc", String(decoding: escaped.bytes, as: UTF8.self), to: &buffer)
                    } else {
                        appendAttribute("default", text, to: &buffer)
                    }
                }
                if let original = attribute.originalName { appendAttribute("original-name", original, to: &buffer) }
                buffer.append("/>\n")
            }
            for relationship in entity.relationships {
                buffer.append(string: pad + "    <relationship")
                appendAttribute("name", relationship.name, to: &buffer)
                appendAttribute("destination", relationship.destination, to: &buffer)
                if relationship.isToMany { appendAttribute("to-many", "true", to: &buffer) }
                if relationship.isOptional { appendAttribute("optional", "true", to: &buffer) }
                if let inverse = relationship.inverse { appendAttribute("inverse", inverse, to: &buffer) }
                appendAttribute("delete-rule", relationship.deleteRule.rawValue, to: &buffer)
                if relationship.minimumModelCount > 0 {
                    appendAttribute("minimum-count", String(relationship.minimumModelCount), to: &buffer)
                }
                if relationship.maximumModelCount > 0 {
                    appendAttribute("maximum-count", String(relationship.maximumModelCount), to: &buffer)
                }
                if let original = relationship.originalName { appendAttribute("original-name", original, to: &buffer) }
                buffer.append("/>\n")
            }
            // A one-attribute constraint is that attribute's `unique="true"`; the
            // rest, relationship members included, by name.
            for constraint in entity.declaredConstraints {
                buffer.append(string: pad + "    <unique")
                appendAttribute("attributes", constraint.joined(separator: " "), to: &buffer)
                buffer.append("/>\n")
            }
            // Indexes last: a package written before them has none, and reads the same.
            for index in entity.indexes {
                buffer.append(string: pad + "    <index")
                appendAttribute("attributes", index.joined(separator: " "), to: &buffer)
                buffer.append("/>\n")
            }
            buffer.append(string: pad + "  </entity>\n")
        }
        buffer.append(string: pad + "</schema>\n")
    }

    static func optionName(_ option: Schema.Attribute.Option) -> String {
        switch option {
        case .unique: return "unique"
        case .externalStorage: return "external-storage"
        case .transient: return "transient"
        case .spotlight: return "spotlight"
        case .allowsCloudEncryption: return "allows-cloud-encryption"
        case .preserveValueOnDeletion: return "preserve-value-on-deletion"
        case .ephemeral: return "ephemeral"
        case .codable: return "codable"
        }
    }

    private static func appendAttribute(_ name: String, _ value: String, to buffer: inout ByteBuffer) {
        buffer.append(UInt8(ascii: " "))
        buffer.append(string: name)
        buffer.append(UInt8(ascii: "="))
        XMLText.appendQuotedAttributeValue(value, to: &buffer)
    }

    // MARK: Reading

    /// Builds an attribute from a schema file's `<attribute>` element's XML attributes.
    static func attribute(from xml: [String: String]) throws(SchemaDeclarationError) -> Schema.Attribute {
        let name = try required("name", in: xml, of: "attribute")
        let typeName = try required("type", in: xml, of: "attribute \(name)")
        guard let type = ValueType(typeName) else {
            let hint = ValueType.suggestion(for: typeName).map { "; did you mean '\($0)'?" } ?? ""
            throw .init("attribute \(name): unknown type '\(typeName)'\(hint)")
        }
        guard !type.isOptionalElement else {
            throw .init(
                "attribute \(name): type '\(typeName)' marks an element that may be absent, as in array(\(typeName)); "
                    + "an attribute that may be absent is optional=\"true\"")
        }
        var attribute = Schema.Attribute(name, type, isOptional: try flag("optional", in: xml))
        for option in Schema.Attribute.Option.allCases where try flag(optionName(option), in: xml) {
            attribute.options.insert(option)
        }
        attribute.originalName = xml["original-name"]
        var defaultText = xml["default"]
        if let escaped = xml["default.esc"] {
            guard let text = JSONParser.unescapeBody(escaped) else { throw .init("attribute \(name): bad default.esc") }
            defaultText = text
        }
        if let defaultText {
            guard let value = ValueText.decode(defaultText, as: type) else {
                throw .init("attribute \(name): default '\(defaultText)' is not a valid \(type)")
            }
            attribute.defaultStoredValue = value
        }
        let known = Set(
            ["name", "type", "optional", "default", "default.esc", "original-name"]
                + Schema.Attribute.Option.allCases.map(optionName))
        if let unknown = xml.keys.sorted().first(where: { !known.contains($0) }) {
            throw .init("attribute \(name): unknown property '\(unknown)'")
        }
        return attribute
    }

    /// Builds a relationship from a schema file's `<relationship>` element's XML attributes.
    static func relationship(from xml: [String: String]) throws(SchemaDeclarationError) -> Schema.Relationship {
        let name = try required("name", in: xml, of: "relationship")
        let destination = try required("destination", in: xml, of: "relationship \(name)")
        var relationship = Schema.Relationship(
            name, to: destination, toMany: try flag("to-many", in: xml),
            isOptional: try flag("optional", in: xml),
            inverse: xml["inverse"], originalName: xml["original-name"])
        if let rule = xml["delete-rule"] {
            guard let deleteRule = Schema.Relationship.DeleteRule(rawValue: rule) else {
                throw .init("relationship \(name): unknown delete-rule '\(rule)' (cascade, nullify, deny, noAction)")
            }
            relationship.deleteRule = deleteRule
        }
        for (key, apply) in [
            ("minimum-count", { (r: inout Schema.Relationship, n: Int) in r.minimumModelCount = n }),
            ("maximum-count", { (r: inout Schema.Relationship, n: Int) in r.maximumModelCount = n }),
        ] {
            guard let text = xml[key] else { continue }
            guard let count = Int(text), count >= 0 else { throw .init("relationship \(name): bad \(key) '\(text)'") }
            apply(&relationship, count)
        }
        let known: Set<String> = [
            "name", "destination", "to-many", "optional", "inverse", "delete-rule", "minimum-count",
            "maximum-count", "original-name",
        ]
        if let unknown = xml.keys.sorted().first(where: { !known.contains($0) }) {
            throw .init("relationship \(name): unknown property '\(unknown)'")
        }
        return relationship
    }

    /// A uniqueness constraint: `<unique attributes="name start"/>`; names
    /// attributes and to-one relationships alike (names are unique across both).
    static func uniquenessConstraint(from xml: [String: String]) throws(SchemaDeclarationError) -> [String] {
        let names = try required("attributes", in: xml, of: "unique").split(separator: " ").map(String.init)
        if let unknown = xml.keys.sorted().first(where: { $0 != "attributes" }) {
            throw .init("unique: unknown property '\(unknown)'")
        }
        return names
    }

    /// An index: `<index attributes="age weight"/>`, the attributes it orders
    /// by, most significant first.
    static func index(from xml: [String: String]) throws(SchemaDeclarationError) -> [String] {
        let names = try required("attributes", in: xml, of: "index").split(separator: " ").map(String.init)
        if let unknown = xml.keys.sorted().first(where: { $0 != "attributes" }) {
            throw .init("index: unknown property '\(unknown)'")
        }
        return names
    }

    private static func required(_ key: String, in xml: [String: String], of what: String) throws(SchemaDeclarationError) -> String {
        guard let value = xml[key] else { throw .init("\(what) needs '\(key)'") }
        return value
    }

    private static func flag(_ key: String, in xml: [String: String]) throws(SchemaDeclarationError) -> Bool {
        switch xml[key] {
        case nil, "false": return false
        case "true": return true
        case let other?: throw .init("'\(key)' must be true or false, not '\(other)'")
        }
    }
}

/// A malformed schema declaration, before it is given a location.
struct SchemaDeclarationError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

extension JSONParser {
    /// Decodes the body of a JSON string literal (the text between the quotes).
    static func unescapeBody(_ body: String) -> String? {
        var parser = JSONParser("\"" + body + "\"")
        guard case .string(let text)? = parser.parseDocument(as: .string) else { return nil }
        return text
    }
}
