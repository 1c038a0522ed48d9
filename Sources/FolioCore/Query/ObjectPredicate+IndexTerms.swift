extension ObjectPredicate {
    /// The tests of this predicate's top-level conjunction that a declared
    /// index could answer: an attribute of `entity` (no relationship path, no
    /// `@count`) compared with a literal by `==`, `<`, `<=`, `>` or `>=`,
    /// case-sensitively. Every object the predicate matches passes each of them.
    ///
    /// A string attribute gives equality only: predicates compare strings by
    /// Unicode scalars, an index orders them as Swift does (canonical
    /// equivalence), so equal strings are neighbours there but a range of
    /// scalars is not a range of the index.
    func indexTerms(entity: Int, graph: ObjectGraph) -> [IndexTerm] {
        var terms: [IndexTerm] = []
        var pending = [root]
        while let node = pending.popLast() {
            switch node {
            case .and(let operands): pending += operands
            case .comparison(let left, let op, let right, let caseInsensitive, _) where !caseInsensitive:
                if let term = Self.indexTerm(left, op, right, entity: entity, graph: graph) { terms.append(term) }
            default: continue
            }
        }
        return terms
    }

    private static func indexTerm(
        _ left: Operand, _ op: Operator, _ right: Operand, entity: Int,
        graph: ObjectGraph
    ) -> IndexTerm? {
        var comparison: IndexTerm.Comparison
        switch op {
        case .equal: comparison = .equal
        case .less: comparison = .less
        case .lessOrEqual: comparison = .lessOrEqual
        case .greater: comparison = .greater
        case .greaterOrEqual: comparison = .greaterOrEqual
        default: return nil
        }
        let names: [String]
        let literal: Literal
        switch (left, right) {
        case (.keyPath(let path, false, _), .literal(let value, _)):
            (names, literal) = (path, value)
        case (.literal(let value, _), .keyPath(let path, false, _)):
            (names, literal) = (path, value)
            // The literal came first: `3 < age` is `age > 3`.
            switch comparison {
            case .less: comparison = .greater
            case .lessOrEqual: comparison = .greaterOrEqual
            case .greater: comparison = .less
            case .greaterOrEqual: comparison = .lessOrEqual
            case .equal: break
            }
        default:
            return nil
        }
        guard names.count == 1, let attribute = graph.layout.entities[entity].attributeIndex[names[0]] else { return nil }
        let type = graph.layout.entities[entity].attributes[attribute].type
        if type == .string, comparison != .equal { return nil }
        // A literal that does not convert makes the compiled predicate throw first.
        guard let constant = try? CompiledPredicate.value(literal, as: type, column: 0) else { return nil }
        return IndexTerm(attribute: attribute, comparison: comparison, constant: constant)
    }
}
