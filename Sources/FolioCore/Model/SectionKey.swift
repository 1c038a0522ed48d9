import Foundation

/// How a sectioned ``ResultsObserver`` reads a model's section title: from the
/// stored attribute the key path names (no model made), or through the model
/// for a key path to anything else; and the sort descriptor that keeps each
/// section's models together.
struct SectionKey<Element: PersistentModel, SectionTitle: Hashable> {
    /// The key path the program gave.
    let keyPath: PartialKeyPath<Element>
    /// Sorts by the key: prepended to the observer's sort descriptors. (In an
    /// array: a `SortDescriptor` stored inline makes a release build's value
    /// witnesses refer to a Foundation type that is not exported, and fail to link.)
    let sortDescriptors: [SortDescriptor<Element>]
    /// The title read through a model.
    let titleOfModel: (Element) -> SectionTitle
    /// The title read from the stored attribute of the object at a row; `nil`
    /// when the key is not a stored attribute (only the model can say).
    let title: (ObjectRef, ObjectGraph) -> SectionTitle?
}

extension SectionKey where SectionTitle == String {
    /// Sections by a `String` property.
    init(_ keyPath: KeyPath<Element, String>) {
        let name = Self.attributeName(keyPath)
        self.init(
            keyPath: keyPath, sortDescriptors: [SortDescriptor(Self.sendable(keyPath))],
            titleOfModel: { $0[keyPath: keyPath] },
            title: { ref, graph in Self.storedTitle(name, ref, graph) })
    }

    /// Sections by an optional `String` property: `nil` reads as `""`.
    init(_ keyPath: KeyPath<Element, String?>) {
        let name = Self.attributeName(keyPath)
        self.init(
            keyPath: keyPath, sortDescriptors: [SortDescriptor(Self.sendable(keyPath))],
            titleOfModel: { $0[keyPath: keyPath] ?? "" },
            title: { ref, graph in Self.storedTitle(name, ref, graph) })
    }

    /// The key path as the `Sendable` one `SortDescriptor` asks for. A key path
    /// is an immutable object, safe to share, and `Sendable` is a marker with no
    /// run-time form; the type system only cannot tell it of a key path that was
    /// not written as a literal (SwiftData's initializers take a plain `KeyPath`).
    private static func sendable<Value>(_ keyPath: KeyPath<Element, Value>) -> any KeyPath<Element, Value> & Sendable {
        unsafeBitCast(keyPath, to: (any KeyPath<Element, Value> & Sendable).self)
    }

    /// The persisted attribute a key path reads, if it reads one directly.
    private static func attributeName(_ keyPath: AnyKeyPath) -> String? {
        guard let property = ModelMetadata.of(Element.self).property(for: keyPath), property.accepts == nil,
            case .attribute = property.kind
        else { return nil }
        return property.name
    }

    /// The stored string (`""` for none), or `nil` when not stored as a string.
    private static func storedTitle(_ name: String?, _ ref: ObjectRef, _ graph: ObjectGraph) -> String? {
        guard let name, let attribute = graph.layout.entities[Int(ref.entity)].attributeIndex[name] else { return nil }
        switch graph.value(ref, attribute) {
        case .string(let text): return text
        case .null: return ""
        default: return nil
        }
    }
}
