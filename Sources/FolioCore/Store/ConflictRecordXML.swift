import Foundation

/// A recorded merge conflict as a part file holds it: one `<f.conflict …/>`
/// element on its own line, after the object it concerns (or where the object
/// was, when the merge removed it), so a conflict travels with its object
/// through saves, copies and Git, and a merge of the part merges its records too.
///
/// ```xml
/// <f.conflict f.id="25" kind="value" property="diet" base="herbivorous" ours="carnivorous" theirs="insectivorous"/>
/// <f.conflict f.id="40" kind="deletedAndEdited" theirs.name="Lion" theirs.diet="carnivorous" theirs.category.ids="24"/>
/// ```
///
/// - `kind`: ``MergeConflict/Kind``'s raw value; `property` and `key` when the
///   conflict is about one attribute (one key of a dictionary) or relationship.
/// - Each side (`base`, `ours`, `theirs`) is absent when that side has no
///   version. A value is written as the property's value text (`SIDE`, or
///   `SIDE.esc` with JSON escapes), `SIDE.nil="true"` for nil; a relationship
///   as `SIDE.ids` (space-separated identifiers, possibly empty); a whole
///   object as `SIDE.PROPERTY`, `SIDE.PROPERTY.nil` and `SIDE.PROPERTY.ids`.
enum ConflictRecordXML {
    /// The element's name: not a possible entity name (names cannot hold a dot).
    static let elementName = "f.conflict"
    static let sides = ["base", "ours", "theirs"]
    /// XML attributes a record holds besides its sides' contents.
    static let ownAttributes: Set<String> = ["f.id", "entity", "kind", "property", "key"]

    /// Appends `conflict` as one indented line; `namingEntity` adds its
    /// `entity` (where the place does not say it: a manifest's list).
    static func append(
        _ conflict: MergeConflict, schema: Schema, indent: Int = 2, namingEntity: Bool = false,
        to buffer: inout ByteBuffer
    ) {
        buffer.append(string: String(repeating: " ", count: indent))
        buffer.append("<f.conflict f.id=\"")
        buffer.append(uint: conflict.id.id)
        buffer.append("\"")
        if namingEntity { DocumentWriter.appendText(conflict.entityName, name: "entity", to: &buffer) }
        DocumentWriter.appendText(conflict.kind.rawValue, name: "kind", to: &buffer)
        if let property = conflict.property { DocumentWriter.appendText(property, name: "property", to: &buffer) }
        if let key = conflict.key { DocumentWriter.appendText(key, name: "key", to: &buffer) }
        let entity = schema.entity(named: conflict.entityName)
        for (side, content) in zip(sides, [conflict.base, conflict.ours, conflict.theirs]) {
            guard let content else { continue }
            append(content, as: side, property: conflict.property, key: conflict.key, entity: entity, to: &buffer)
        }
        buffer.append("/>\n")
    }

    private static func append(
        _ content: MergeConflict.Content, as name: String, property: String?, key: String?,
        entity: Schema.Entity?, to buffer: inout ByteBuffer
    ) {
        switch content {
        case .value(let value):
            guard value != .null else {
                DocumentWriter.appendText("true", name: name + ".nil", to: &buffer)
                return
            }
            DocumentWriter.appendText(
                ValueText.encode(value, as: valueType(of: property, key: key, in: entity, for: value)),
                name: name, to: &buffer)
        case .related(let ids):
            DocumentWriter.appendText(ids.map { String($0.id) }.joined(separator: " "), name: name + ".ids", to: &buffer)
        case .object(let properties):
            for (propertyName, propertyContent) in properties.sorted(by: { $0.key < $1.key }) {
                append(
                    propertyContent, as: name + "." + propertyName, property: propertyName, key: nil, entity: entity,
                    to: &buffer)
            }
        }
    }

    /// The type a value of `property` (one key's value, with `key`) is written as;
    /// for a property the schema does not know, the value's own kind as an any-value.
    private static func valueType(of property: String?, key: String?, in entity: Schema.Entity?, for value: Value) -> ValueType {
        if let property, let attribute = entity?.attribute(named: property) {
            if key != nil, case .dictionary(let element) = attribute.type { return element }
            return attribute.type
        }
        return .any
    }

    /// Reads one record of the part holding `entityName`'s objects from its
    /// element's XML attributes; `nil` when they do not make one (an unknown
    /// kind or entity, an identifier or a value that does not read).
    static func read(_ xml: [String: String], entity entityName: String, schema: Schema) -> MergeConflict? {
        guard let idText = xml["f.id"], let number = UInt64(idText), number > 0,
            let entity = schema.entity(named: entityName),
            let kind = text("kind", xml).flatMap(MergeConflict.Kind.init(rawValue:))
        else { return nil }
        let property = text("property", xml)
        let key = text("key", xml)
        var contents: [MergeConflict.Content?] = []
        for side in sides {
            if property != nil {
                if let ids = text(side + ".ids", xml) {
                    guard let related = identifiers(ids, of: property, in: entity, schema: schema) else { return nil }
                    contents.append(.related(related))
                } else if xml[side + ".nil"] == "true" {
                    contents.append(.value(.null))
                } else if let valueText = text(side, xml) {
                    guard let value = decode(valueText, property: property, key: key, in: entity) else { return nil }
                    contents.append(.value(value))
                }
                // A record about one property may still hold a whole object (a cascade's
                // removed object, named by the link that removed it): read on below.
                if contents.count == sides.firstIndex(of: side).map({ $0 + 1 }) { continue }
            }
            // A whole object: every SIDE.PROPERTY[.nil|.ids|.esc].
            var properties: [String: MergeConflict.Content] = [:]
            let prefix = side + "."
            for (name, rawText) in xml where name.hasPrefix(prefix) {
                var rest = String(name.dropFirst(prefix.count))
                if rest.hasSuffix(".ids") {
                    rest.removeLast(4)
                    guard let related = identifiers(rawText, of: rest, in: entity, schema: schema) else { return nil }
                    properties[rest] = .related(related)
                } else if rest.hasSuffix(".nil") {
                    rest.removeLast(4)
                    properties[rest] = .value(.null)
                } else {
                    var valueText = rawText
                    if rest.hasSuffix(DocumentWriter.escapedSuffix) {
                        rest.removeLast(DocumentWriter.escapedSuffix.count)
                        guard let unescaped = JSONParser.unescapeBody(rawText) else { return nil }
                        valueText = unescaped
                    }
                    guard let value = decode(valueText, property: rest, key: nil, in: entity) else { return nil }
                    properties[rest] = .value(value)
                }
            }
            contents.append(properties.isEmpty ? nil : .object(properties))
        }
        return MergeConflict(
            kind: kind, id: PersistentIdentifier(entityName: entityName, id: number), property: property,
            key: key, base: contents[0], ours: contents[1], theirs: contents[2])
    }

    /// Text written by ``DocumentWriter/appendText(_:name:to:)``: `name`, or `name.esc` with JSON escapes.
    private static func text(_ name: String, _ xml: [String: String]) -> String? {
        if let plain = xml[name] { return plain }
        return xml[name + DocumentWriter.escapedSuffix].flatMap(JSONParser.unescapeBody)
    }

    private static func decode(_ text: String, property: String?, key: String?, in entity: Schema.Entity) -> Value? {
        guard let property, let attribute = entity.attribute(named: property) else { return nil }
        var type = attribute.type
        if key != nil, case .dictionary(let element) = type { type = element }
        return ValueText.decode(text, as: type)
    }

    private static func identifiers(
        _ text: String, of property: String?, in entity: Schema.Entity,
        schema: Schema
    ) -> [PersistentIdentifier]? {
        guard let property, let relationship = entity.relationships.first(where: { $0.name == property }) else { return nil }
        var ids: [PersistentIdentifier] = []
        for word in text.split(separator: " ") {
            guard let number = UInt64(word) else { return nil }
            ids.append(PersistentIdentifier(entityName: relationship.destination, id: number))
        }
        return ids
    }
}
