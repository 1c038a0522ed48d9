import Foundation

/// A predicate bound to one entity of a graph: names resolved to indexes,
/// literals converted to the attribute's type, and the tree turned into
/// closures. Comparisons of an integer or double attribute with a number read
/// the typed column directly, so a scan costs little more than a loop.
struct CompiledPredicate {
    let matches: (ObjectRef) -> Bool
    /// The first value a test could not read (an externally stored value whose
    /// file is missing or damaged): such a row does not match, and whoever ran
    /// the tests must then fail with this error rather than answer as if the
    /// value were empty (``ReadFailure``).
    let failure = ReadFailure()

    init(_ predicate: ObjectPredicate, entity: Int, graph: ObjectGraph) throws(ObjectPredicateError) {
        matches = try CompiledPredicate.compile(predicate.root, entity: entity, graph: graph, failure: failure)
    }

    private typealias Test = (ObjectRef) -> Bool
    private typealias Read = (ObjectRef) -> Value

    private static func compile(_ node: ObjectPredicate.Node, entity: Int, graph: ObjectGraph, failure: ReadFailure) throws(ObjectPredicateError) -> Test {
        switch node {
        case .constant(let value): return { _ in value }
        case .not(let inner):
            let test = try compile(inner, entity: entity, graph: graph, failure: failure)
            return { !test($0) }
        case .and(let operands):
            var tests: [Test] = []
            tests.reserveCapacity(operands.count)
            for operand in operands { tests.append(try compile(operand, entity: entity, graph: graph, failure: failure)) }
            return { ref in
                for test in tests where !test(ref) { return false }
                return true
            }
        case .or(let operands):
            var tests: [Test] = []
            tests.reserveCapacity(operands.count)
            for operand in operands { tests.append(try compile(operand, entity: entity, graph: graph, failure: failure)) }
            return { ref in
                for test in tests where test(ref) { return true }
                return false
            }
        case .comparison(let left, let op, let right, let caseInsensitive, let column):
            return try comparison(left, op, right, caseInsensitive: caseInsensitive, column: column, entity: entity, graph: graph, failure: failure)
        }
    }

    /// What a key path reads: its type (for converting literals) and a reader.
    private struct Path {
        var type: ValueType?
        var read: Read
        /// Set for a direct attribute of the entity: the column, for fast paths.
        var attribute: Int?
        /// For an attribute: the entity declaring it and its name, for messages.
        var owner: (entity: String, attribute: String)?
    }

    private static func resolve(
        _ names: [String], count: Bool, column: Int, entity: Int,
        graph: ObjectGraph, failure: ReadFailure
    ) throws(ObjectPredicateError) -> Path {
        var hops: [(slot: Int, destination: Int)] = []
        var current = entity
        for (index, name) in names.enumerated() {
            let layout = graph.layout.entities[current]
            let isLast = index == names.count - 1
            if let slot = layout.linkIndex[name] {
                let link = layout.links[slot]
                if isLast && count {
                    guard link.isToMany else { throw ObjectPredicateError("\(layout.name).\(name) is to-one; @count needs a to-many", column: column) }
                    let prefix = hops
                    return Path(
                        type: .int,
                        read: { ref in
                            guard let owner = follow(ref, prefix, graph) else { return .int(0) }
                            return .int(Int64(graph.tables[Int(owner.entity)].links[slot].many[Int(owner.row)].count))
                        })
                }
                guard !link.isToMany else {
                    throw ObjectPredicateError("\(layout.name).\(name) is to-many; use \(name).@count", column: column)
                }
                // -1: a relationship into a hierarchy, whose targets name their entity
                // (its subentities begin with its properties, so later hops' slots hold).
                hops.append((slot, link.hierarchy == nil ? link.destination : -1))
                current = link.destination
                if isLast {
                    let path = hops
                    return Path(
                        type: nil,
                        read: { ref in
                            guard let target = follow(ref, path, graph) else { return .null }
                            return .int(Int64(graph.tables[Int(target.entity)].ids[Int(target.row)]))
                        })
                }
                continue
            }
            guard let attribute = layout.attributeIndex[name] else {
                let properties = layout.attributes.map(\.name) + layout.links.prefix(layout.declaredLinkCount).compactMap(\.name)
                throw ObjectPredicateError(
                    "\(layout.name) has no property '\(name)'"
                        + NameSuggestions.hint(for: name, among: properties), column: column)
            }
            guard isLast, !count else { throw ObjectPredicateError("'\(name)' is an attribute; nothing follows it", column: column) }
            let type = layout.attributes[attribute].type
            let path = hops
            let owner = (layout.name, name)
            // An externally stored value is read from its file, and a file that cannot be
            // read is recorded (the caller fails with it), never taken for an empty value.
            let isExternal = graph.layout.entities[current].traits[attribute].isExternal
            if path.isEmpty {
                if isExternal {
                    return Path(type: type, read: { failure.load(graph, $0, attribute) }, attribute: attribute, owner: owner)
                }
                return Path(type: type, read: { graph.value($0, attribute) }, attribute: attribute, owner: owner)
            }
            return Path(
                type: type,
                read: { ref in
                    guard let target = follow(ref, path, graph) else { return .null }
                    return isExternal ? failure.load(graph, target, attribute) : graph.value(target, attribute)
                }, owner: owner)
        }
        throw ObjectPredicateError("empty key path", column: column)
    }

    /// A reader for a sort key: an attribute, through to-one relationships, or a
    /// to-many's `@count`. A bare relationship is refused: it has no order of its own.
    ///
    /// - Returns: the reader, the attribute's column when it is the entity's
    ///   own, and — for an attribute whose values have no order (a collection,
    ///   a composite) — the entity declaring it and its name, which the fetch refuses.
    static func reader(forSortKey keyPath: String, entity: Int, graph: ObjectGraph, failure: ReadFailure) throws(ObjectPredicateError)
        -> (read: (ObjectRef) -> Value, attribute: Int?, unsortable: (entity: String, attribute: String)?)
    {
        var names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let count = names.last == "@count"
        if count { names.removeLast() }
        guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else { throw ObjectPredicateError("empty key path", column: 0) }
        let path = try resolve(names, count: count, column: 0, entity: entity, graph: graph, failure: failure)
        guard let type = path.type else {
            throw ObjectPredicateError("'\(keyPath)' is a relationship; sort by one of its attributes", column: 0)
        }
        return (path.read, path.attribute, type.isSortable ? nil : path.owner)
    }

    private static func follow(_ ref: ObjectRef, _ hops: [(slot: Int, destination: Int)], _ graph: ObjectGraph) -> ObjectRef? {
        var current = ref
        for hop in hops {
            let row = graph.tables[Int(current.entity)].links[hop.slot].one[Int(current.row)]
            guard row >= 0 else { return nil }
            current =
                hop.destination >= 0
                ? ObjectRef(entity: hop.destination, row: Int(row))
                : graph.layout.entities[Int(current.entity)].links[hop.slot].ref(row)
        }
        return current
    }

    /// Converts a literal to a value of the type it is compared with.
    static func value(_ literal: ObjectPredicate.Literal, as type: ValueType?, column: Int) throws(ObjectPredicateError) -> Value {
        switch literal {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let text):
            // A bare literal, read by the type it is compared with, as insert reads it.
            switch type {
            case .string?: return .string(text)
            case .date?: if let date = Value(text: text, as: .date) { return date }
            case .decimal?:
                if let decimal = Value(text: text, as: .decimal) { return decimal }
            default: break
            }
            if let value = LiteralSyntax.bareValue(text) { return value }
            throw ObjectPredicateError(
                "'\(text)' is not a number or a date (dates are written 2025-07-01 or 2025-07-01T09:30:00Z)",
                column: column)
        case .string(let text):
            switch type {
            case let scalar? where [.date, .uuid, .url, .decimal, .data].contains(scalar):
                guard let converted = ValueText.decodeScalar(text, as: scalar) else {
                    throw ObjectPredicateError("\"\(text)\" is not a valid \(scalar)", column: column)
                }
                return converted
            default:
                return .string(text)
            }
        }
    }

    private static func comparison(
        _ left: ObjectPredicate.Operand, _ op: ObjectPredicate.Operator,
        _ right: ObjectPredicate.Operand, caseInsensitive: Bool, column: Int,
        entity: Int, graph: ObjectGraph, failure: ReadFailure
    ) throws(ObjectPredicateError) -> Test {
        // Put the key path on the left; flip the operator when the literal came first.
        var (left, op, right) = (left, op, right)
        if case .keyPath = right, !isKeyPath(left) {
            swap(&left, &right)
            switch op {
            case .less: op = .greater
            case .greater: op = .less
            case .lessOrEqual: op = .greaterOrEqual
            case .greaterOrEqual: op = .lessOrEqual
            case .equal, .notEqual: break
            default: throw ObjectPredicateError("'\(op.rawValue)' needs the property on its left", column: column)
            }
        }
        guard case .keyPath(let names, let count, let pathColumn) = left else {
            throw ObjectPredicateError("a comparison needs a property name", column: column)
        }
        let path = try resolve(names, count: count, column: pathColumn, entity: entity, graph: graph, failure: failure)
        let readRight: Read
        var constant: Value?
        var list: [Value]?
        switch right {
        case .keyPath(let otherNames, let otherCount, let otherColumn):
            readRight = try resolve(otherNames, count: otherCount, column: otherColumn, entity: entity, graph: graph, failure: failure).read
        case .literal(let literal, let literalColumn):
            let converted = try value(literal, as: path.type, column: literalColumn)
            constant = converted
            readRight = { _ in converted }
        case .list(let literals, let listColumn):
            guard op == .in else { throw ObjectPredicateError("a {list} goes with 'in'", column: listColumn) }
            var values: [Value] = []
            for literal in literals { values.append(try value(literal, as: path.type, column: listColumn)) }
            list = values
            readRight = { _ in .null }
        }
        if let fast = fastPath(path, op, constant, graph: graph, entity: entity) { return fast }
        let read = path.read
        switch op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            let ordering = op != .equal && op != .notEqual
            return { ref in
                let (left, right) = (read(ref), readRight(ref))
                // As in NSPredicate: nil is equal only to nil, and neither below nor above anything.
                if ordering, left == .null || right == .null { return false }
                guard let order = left.compare(to: right, caseInsensitive: caseInsensitive) else {
                    return op == .notEqual
                }
                switch op {
                case .equal: return order == .orderedSame
                case .notEqual: return order != .orderedSame
                case .less: return order == .orderedAscending
                case .lessOrEqual: return order != .orderedDescending
                case .greater: return order == .orderedDescending
                default: return order != .orderedAscending
                }
            }
        case .in:
            guard let list else { throw ObjectPredicateError("'in' needs a {list}", column: column) }
            if !caseInsensitive, list.count > 8 { return hashedMembership(read, list) }
            return { ref in
                let value = read(ref)
                return list.contains { value.compare(to: $0, caseInsensitive: caseInsensitive) == .orderedSame }
            }
        case .contains, .beginsWith, .endsWith:
            return { ref in
                let value = read(ref)
                let other = readRight(ref)
                if case .string(var text) = value, case .string(var needle) = other {
                    if caseInsensitive { text = text.lowercased(); needle = needle.lowercased() }
                    switch op {
                    // Foundation's contains is false for an empty needle; every string contains "".
                    case .contains: return needle.isEmpty || text.contains(needle)
                    case .beginsWith: return text.hasPrefix(needle)
                    default: return text.hasSuffix(needle)
                    }
                }
                guard op == .contains else { return false }
                switch value {
                case .array(let elements), .set(let elements):
                    return elements.contains { $0.compare(to: other, caseInsensitive: caseInsensitive) == .orderedSame }
                case .dictionary(let entries):
                    if case .string(let key) = other { return entries[key] != nil }
                    return false
                default: return false
                }
            }
        }
    }

    /// `in` over a long list without a scan per object: strings are looked up
    /// by hash (then compared by Unicode scalars, as `compare` does), `nil` by a
    /// flag; any other value goes through the list as usual. A list as long as
    /// the document costs O(objects + list), not their product.
    private static func hashedMembership(_ read: @escaping Read, _ list: [Value]) -> Test {
        var strings: [String: [String]] = [:]
        for case .string(let string) in list { strings[string, default: []].append(string) }
        let includesNull = list.contains(.null)
        return { ref in
            let value = read(ref)
            switch value {
            case .string(let text):
                // String's == is canonical equivalence, coarser than equal scalars: check the candidates.
                return strings[text]?.contains { $0.unicodeScalars.elementsEqual(text.unicodeScalars) } ?? false
            case .null:
                return includesNull
            default:
                return list.contains { value.compare(to: $0) == .orderedSame }
            }
        }
    }

    private static func isKeyPath(_ operand: ObjectPredicate.Operand) -> Bool {
        if case .keyPath = operand { return true }
        return false
    }

    /// Reads typed integer and double columns directly for comparisons with a number.
    private static func fastPath(
        _ path: Path, _ op: ObjectPredicate.Operator, _ constant: Value?,
        graph: ObjectGraph, entity: Int
    ) -> Test? {
        guard let attribute = path.attribute, let constant, let type = path.type else { return nil }
        func test<T: Comparable>(_ a: T, _ b: T) -> Bool {
            switch op {
            case .equal: return a == b
            case .notEqual: return a != b
            case .less: return a < b
            case .lessOrEqual: return a <= b
            case .greater: return a > b
            case .greaterOrEqual: return a >= b
            default: return false
            }
        }
        guard [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(op) else { return nil }
        // Rows with a blob still on disk hold a placeholder: only the general path reads them.
        guard !graph.tables[entity].columns[attribute].hasBlobs else { return nil }
        switch graph.tables[entity].columns[attribute] {
        case .int(let storage) where type.integerRange != nil && storage.nulls.isEmpty:
            guard case .int(let bound) = constant else { return nil }
            return { test(storage.values[Int($0.row)], bound) }
        case .double(let storage) where type == .double && storage.nulls.isEmpty:
            guard let bound = constant.numeric, !bound.isNaN else { return nil }
            return { ref in
                let value = storage.values[Int(ref.row)]
                return value.isNaN ? op == .notEqual : test(value, bound)
            }
        default:
            return nil
        }
    }
}

/// Where a compiled read records the first externally stored value it could
/// not read, for the fetch to fail with (``FetchError/unreadable(_:)``): a
/// predicate, a count or a `delete … where` never acts on a damaged or
/// missing file's value as if it were empty. Used by one fetch on one thread.
final class ReadFailure {
    private(set) var error: GraphError?

    /// The value of a cell, read from its file if it is still on disk; `.null`
    /// (which the caller never acts on) when it cannot be read.
    func load(_ graph: ObjectGraph, _ ref: ObjectRef, _ attribute: Int) -> Value {
        do {
            return try graph.loadValue(ref, attribute)
        } catch {
            if self.error == nil {
                let entity = graph.layout.entities[Int(ref.entity)]
                self.error = .unreadableValue(
                    entity: entity.name, attribute: entity.attributes[attribute].name,
                    id: graph.tables[Int(ref.entity)].ids[Int(ref.row)], reason: "\(error)")
            }
            return .null
        }
    }
}
