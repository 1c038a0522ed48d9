import Foundation

/// A Foundation `#Predicate` over a model class, evaluated on the graph's rows
/// instead of on model instances.
///
/// Evaluating a predicate on models means making a model for every object of
/// the entity and reading each property through its getter. Compiled, a key
/// path to a persisted attribute reads the attribute's column and decodes it
/// to the property's Swift type, and every operator is Swift's own applied to
/// those values, so the result is what evaluating on the models gives, without
/// the models. Expressions Folio does not compile (relationships, `Codable`
/// composites, closures over collections) leave the whole predicate to
/// Foundation: `init` returns `nil`.
struct CompiledModelPredicate {
    /// Whether a row matches; throws ``RowFallback`` when a stored value does
    /// not decode as the property's type and only the model can say what it reads.
    let matches: (ObjectRef) throws -> Bool

    init?<T: PersistentModel>(_ predicate: Predicate<T>, entity: Int, graph: ObjectGraph) {
        let scope = RowScope(graph: graph, entity: entity, metadata: ModelMetadata.of(T.self), variable: predicate.variable.key)
        guard let matches = scope.evaluator(predicate.expression) else { return nil }
        self.matches = matches
    }
}

/// Thrown by a compiled row evaluator that met a value only a model's getter
/// can interpret; the fetch then evaluates on models instead.
struct RowFallback: Error {}

/// What compiling an expression needs: the graph and entity the rows belong to,
/// the model class's persisted properties, and which variable stands for the model.
struct RowScope {
    let graph: ObjectGraph
    let entity: Int
    let metadata: ModelMetadata
    let variable: PredicateExpressions.VariableID

    /// The evaluator of a subexpression, or `nil` when it is not one Folio compiles.
    func evaluator<E: PredicateExpression>(_ expression: E) -> ((ObjectRef) throws -> E.Output)? {
        // The protocol hands the closure back as `Any`: its Output is erased in
        // the existential, and a cast to the exact function type restores it.
        (expression as? any RowExpression)?.rowEvaluator(in: self) as? (ObjectRef) throws -> E.Output
    }

    /// A reader of a persisted attribute decoded as `Output`, the property's type.
    func attributeReader<Output>(_ keyPath: AnyKeyPath, as output: Output.Type) -> ((ObjectRef) throws -> Output)? {
        guard let property = metadata.property(for: keyPath), property.accepts == nil,
            case .attribute = property.kind,
            let attribute = graph.layout.entities[entity].attributeIndex[property.name],
            let persistable = Output.self as? any PersistableValue.Type
        else { return nil }
        let type = graph.layout.entities[entity].attributes[attribute].type
        if let direct = Self.columnReader(graph.tables[entity].columns[attribute], type: type, as: Output.self) { return direct }
        return Self.reader(persistable, graph: graph, attribute: attribute) as? (ObjectRef) throws -> Output
    }

    /// Reads the common scalar types straight from a column with no `nil`s,
    /// without boxing each value in a `Value`.
    private static func columnReader<Output>(_ column: Column, type: ValueType, as: Output.Type) -> ((ObjectRef) throws -> Output)? {
        // Rows with a blob still on disk hold a placeholder, not their value.
        guard !column.hasBlobs else { return nil }
        func direct<Element, Result>(_ storage: ColumnStorage<Element>, _ convert: @escaping (Element) -> Result)
            -> ((ObjectRef) throws -> Output)?
        {
            guard storage.nulls.isEmpty else { return nil }
            let read: (ObjectRef) throws -> Result = { convert(storage.values[Int($0.row)]) }
            return read as? (ObjectRef) throws -> Output
        }
        switch column {
        // Every signed width fits an Int exactly; unsigned columns hold bit patterns.
        case .int(let storage) where Output.self == Int.self && type.unsignedMax == nil:
            return direct(storage) { Int($0) }
        case .double(let storage) where Output.self == Double.self && type == .double:
            return direct(storage) { $0 }
        case .double(let storage) where Output.self == Date.self && type == .date:
            return direct(storage) { Date(timeIntervalSinceReferenceDate: $0) }
        case .string(let storage) where Output.self == String.self:
            return direct(storage) { $0 }
        case .bool(let storage) where Output.self == Bool.self:
            return direct(storage) { $0 }
        default:
            return nil
        }
    }

    /// Decodes as the getter does: the stored value, else the type's empty or zero value.
    private static func reader<P: PersistableValue>(_ type: P.Type, graph: ObjectGraph, attribute: Int) -> Any {
        let fallback = P(persistentValue: .null) ?? P(persistentValue: .zero(of: P.valueType))
        let read: (ObjectRef) throws -> P = { ref in
            if let value = P(persistentValue: graph.value(ref, attribute)) ?? fallback { return value }
            throw RowFallback()
        }
        return read
    }
}

/// A Foundation predicate expression Folio can evaluate on rows.
///
/// Each conformance compiles its operands through ``RowScope/evaluator(_:)``
/// and applies the same Swift operator the expression's `evaluate` applies.
protocol RowExpression {
    /// A `(ObjectRef) throws -> Output` closure, or `nil` when an operand is not compiled.
    func rowEvaluator(in scope: RowScope) -> Any?
}

extension PredicateExpressions.Value: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        let constant = value
        let evaluate: (ObjectRef) throws -> Output = { _ in constant }
        return evaluate
    }
}

extension PredicateExpressions.NilLiteral: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        let evaluate: (ObjectRef) throws -> Output = { _ in nil }
        return evaluate
    }
}

extension PredicateExpressions.KeyPath: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        // A key path on the model reads a column; one on a value (`name.count`) applies to the value.
        if let variable = root as? any VariableExpression {
            guard variable.variableKey == scope.variable else { return nil }
            return scope.attributeReader(keyPath, as: Output.self)
        }
        guard let base = scope.evaluator(root) else { return nil }
        let path = keyPath
        let evaluate: (ObjectRef) throws -> Output = { try base($0)[keyPath: path] }
        return evaluate
    }
}

/// A predicate variable, seen through its generic parameter.
protocol VariableExpression {
    var variableKey: PredicateExpressions.VariableID { get }
}

extension PredicateExpressions.Variable: VariableExpression {
    var variableKey: PredicateExpressions.VariableID { key }
}

extension PredicateExpressions.Equal: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let lhs = scope.evaluator(lhs), let rhs = scope.evaluator(rhs) else { return nil }
        let evaluate: (ObjectRef) throws -> Bool = { try lhs($0) == rhs($0) }
        return evaluate
    }
}

extension PredicateExpressions.NotEqual: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let lhs = scope.evaluator(lhs), let rhs = scope.evaluator(rhs) else { return nil }
        let evaluate: (ObjectRef) throws -> Bool = { try lhs($0) != rhs($0) }
        return evaluate
    }
}

extension PredicateExpressions.Comparison: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let lhs = scope.evaluator(lhs), let rhs = scope.evaluator(rhs) else { return nil }
        let evaluate: (ObjectRef) throws -> Bool
        switch op {
        case .lessThan: evaluate = { try lhs($0) < rhs($0) }
        case .lessThanOrEqual: evaluate = { try lhs($0) <= rhs($0) }
        case .greaterThan: evaluate = { try lhs($0) > rhs($0) }
        case .greaterThanOrEqual: evaluate = { try lhs($0) >= rhs($0) }
        @unknown default: return nil
        }
        return evaluate
    }
}

extension PredicateExpressions.Conjunction: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let lhs = scope.evaluator(lhs), let rhs = scope.evaluator(rhs) else { return nil }
        let evaluate: (ObjectRef) throws -> Bool = { try lhs($0) && rhs($0) }
        return evaluate
    }
}

extension PredicateExpressions.Disjunction: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let lhs = scope.evaluator(lhs), let rhs = scope.evaluator(rhs) else { return nil }
        let evaluate: (ObjectRef) throws -> Bool = { try lhs($0) || rhs($0) }
        return evaluate
    }
}

extension PredicateExpressions.Negation: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let wrapped = scope.evaluator(wrapped) else { return nil }
        let evaluate: (ObjectRef) throws -> Bool = { try !wrapped($0) }
        return evaluate
    }
}

extension PredicateExpressions.NilCoalesce: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let lhs = scope.evaluator(lhs), let rhs = scope.evaluator(rhs) else { return nil }
        let evaluate: (ObjectRef) throws -> Output = { try lhs($0) ?? rhs($0) }
        return evaluate
    }
}

extension PredicateExpressions.UnaryMinus: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let wrapped = scope.evaluator(wrapped) else { return nil }
        let evaluate: (ObjectRef) throws -> Output = { -(try wrapped($0)) }
        return evaluate
    }
}

extension PredicateExpressions.SequenceContains: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let sequence = scope.evaluator(sequence), let element = scope.evaluator(element) else { return nil }
        let evaluate: (ObjectRef) throws -> Bool = { try sequence($0).contains(element($0)) }
        return evaluate
    }
}

extension PredicateExpressions.SequenceStartsWith: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let base = scope.evaluator(base), let prefix = scope.evaluator(prefix) else { return nil }
        let evaluate: (ObjectRef) throws -> Bool = { try base($0).starts(with: prefix($0)) }
        return evaluate
    }
}

extension PredicateExpressions.CollectionContainsCollection: RowExpression {
    func rowEvaluator(in scope: RowScope) -> Any? {
        guard let base = scope.evaluator(base), let other = scope.evaluator(other) else { return nil }
        // The collection algorithm, as the expression uses: a string contains "" here.
        let evaluate: (ObjectRef) throws -> Bool = { ref in
            let (haystack, needle) = (try base(ref), try other(ref))
            return haystack.firstRange(of: needle) != nil
        }
        return evaluate
    }
}

// MARK: Declared indexes

extension CompiledModelPredicate {
    /// The rows a declared index yields for a predicate's top-level
    /// conjunction of tests of persisted attributes against constants
    /// (`$0.name == name && $0.age >= 18`), in row order; `nil` when no index
    /// serves any of them. Every model the predicate matches is among them, so
    /// evaluating it on these rows — compiled, or on models — gives the scan's
    /// result. Builds the index on first use.
    static func indexedRows<T: PersistentModel>(_ predicate: Predicate<T>, entity: Int, graph: ObjectGraph) -> [ObjectRef]? {
        guard !graph.layout.entities[entity].indexes.isEmpty,
            let source = predicate.expression as? any IndexTermExpression
        else { return nil }
        let scope = RowScope(graph: graph, entity: entity, metadata: ModelMetadata.of(T.self), variable: predicate.variable.key)
        return graph.indexedRows(entity: entity, terms: source.indexTerms(in: scope))
    }
}

/// A predicate expression that may hold tests an index answers.
protocol IndexTermExpression {
    func indexTerms(in scope: RowScope) -> [IndexTerm]
}

extension IndexTerm.Comparison {
    /// The comparison with its operands swapped: `3 < $0.age` is `$0.age > 3`.
    var swapped: IndexTerm.Comparison {
        switch self {
        case .equal: return .equal
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        }
    }
}

extension PredicateExpressions.Conjunction: IndexTermExpression {
    func indexTerms(in scope: RowScope) -> [IndexTerm] {
        ((lhs as? any IndexTermExpression)?.indexTerms(in: scope) ?? [])
            + ((rhs as? any IndexTermExpression)?.indexTerms(in: scope) ?? [])
    }
}

extension PredicateExpressions.Equal: IndexTermExpression {
    func indexTerms(in scope: RowScope) -> [IndexTerm] {
        scope.termOfComparison(lhs, rhs, .equal).map { [$0] } ?? []
    }
}

extension PredicateExpressions.Comparison: IndexTermExpression {
    func indexTerms(in scope: RowScope) -> [IndexTerm] {
        let comparison: IndexTerm.Comparison
        switch op {
        case .lessThan: comparison = .less
        case .lessThanOrEqual: comparison = .lessOrEqual
        case .greaterThan: comparison = .greater
        case .greaterThanOrEqual: comparison = .greaterOrEqual
        @unknown default: return []
        }
        return scope.termOfComparison(lhs, rhs, comparison).map { [$0] } ?? []
    }
}

extension RowScope {
    /// The term of `lhs op rhs` with a key path on either side.
    func termOfComparison<L: PredicateExpression, R: PredicateExpression>(
        _ lhs: L, _ rhs: R,
        _ comparison: IndexTerm.Comparison
    ) -> IndexTerm? {
        if let term = (lhs as? any KeyPathOnVariable)?.indexTerm(against: rhs, comparison, in: self) { return term }
        return (rhs as? any KeyPathOnVariable)?.indexTerm(against: lhs, comparison.swapped, in: self)
    }
}

/// A key path expression, seen through its generic parameters.
protocol KeyPathOnVariable {
    func indexTerm(against constant: any PredicateExpression, _ comparison: IndexTerm.Comparison, in scope: RowScope) -> IndexTerm?
}

extension PredicateExpressions.KeyPath: KeyPathOnVariable {
    /// A test of a persisted attribute against a constant, as an index term,
    /// when the index's order is the Swift operator's on the property's type:
    /// the attribute is stored as that type (and holds no `nil` unless the
    /// property is optional, since a getter reads a stored `nil` as zero), and
    /// the type orders as the index does (numbers, strings, dates, decimals)
    /// or, for equality, compares as it does (also `Bool`, `UUID`, `Data`).
    func indexTerm(against constant: any PredicateExpression, _ comparison: IndexTerm.Comparison, in scope: RowScope) -> IndexTerm? {
        guard let variable = root as? any VariableExpression, variable.variableKey == scope.variable,
            let value = constant as? PredicateExpressions.Value<Output>,
            let persistable = value.value as? any PersistableValue,
            let type = Output.self as? any PersistableValue.Type,
            let property = scope.metadata.property(for: keyPath), property.accepts == nil, case .attribute = property.kind,
            let attribute = scope.graph.layout.entities[scope.entity].attributeIndex[property.name]
        else { return nil }
        let declaration = scope.graph.layout.entities[scope.entity].attributes[attribute]
        let isOptional = Output.self is any OptionalType.Type
        guard declaration.type == type.valueType, isOptional || !declaration.isOptional else { return nil }
        switch declaration.type {
        case .string, .date, .decimal, .double, .float, .int, .int8, .int16, .int32, .int64,
            .uint, .uint8, .uint16, .uint32, .uint64:
            break
        case .bool, .uuid, .data:
            guard comparison == .equal else { return nil }
        default:
            return nil
        }
        return IndexTerm(attribute: attribute, comparison: comparison, constant: persistable.persistentValue)
    }
}
