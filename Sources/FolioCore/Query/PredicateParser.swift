/// A recursive-descent parser for ``ObjectPredicate``'s grammar. Chains of
/// `and`/`or` are read with loops into n-ary nodes; recursion goes only as deep
/// as parentheses and `not` nest, which is bounded by `maximumNesting`.
struct PredicateParser {
    private enum Token: Equatable {
        case word(String)
        /// A bare number or date (``LiteralSyntax``'s rule).
        case number(String)
        case string(String)
        case symbol(String)
        case end
    }

    private var tokens: [(token: Token, column: Int)] = []
    private var position = 0
    private var lexError: ObjectPredicateError?
    private let maximumDepth = ObjectPredicate.maximumNesting
    private var depth = 0

    init(_ text: String) {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func isWordStart(_ s: Unicode.Scalar) -> Bool { s.properties.isAlphabetic || s == "_" || s == "@" }
        func isWord(_ s: Unicode.Scalar) -> Bool { isWordStart(s) || ("0"..."9").contains(s) }
        while index < scalars.count {
            let scalar = scalars[index]
            let column = index + 1
            if scalar == " " || scalar == "\t" || scalar == "\n" { index += 1; continue }
            if scalar == "\"" || scalar == "'" {
                // Quoted strings and bare numbers and dates as ``LiteralSyntax`` reads them everywhere.
                guard let close = LiteralSyntax.closingQuote(in: scalars, from: index) else {
                    lexError = ObjectPredicateError("unterminated string", column: column)
                    return
                }
                do {
                    tokens.append((.string(try LiteralSyntax.unescape(scalars, from: index + 1, to: close)), column))
                } catch {
                    let escape = scalars[min(error.index + 1, close)]
                    lexError = ObjectPredicateError("unknown escape '\\\(escape)'", column: error.index + 1)
                    return
                }
                index = close + 1
            } else if let end = LiteralSyntax.bareLiteralEnd(in: scalars, from: index) {
                tokens.append((.number(String(String.UnicodeScalarView(scalars[index..<end]))), column))
                index = end
            } else if isWordStart(scalar) {
                var value = String.UnicodeScalarView()
                while index < scalars.count, isWord(scalars[index]) { value.append(scalars[index]); index += 1 }
                tokens.append((.word(String(value)), column))
            } else {
                let two = index + 1 < scalars.count ? String(String.UnicodeScalarView([scalar, scalars[index + 1]])) : ""
                if ["==", "!=", "<>", "<=", ">=", "&&", "||"].contains(two) {
                    tokens.append((.symbol(two), column))
                    index += 2
                } else if "=<>!(){},.[]".unicodeScalars.contains(scalar) {
                    tokens.append((.symbol(String(scalar)), column))
                    index += 1
                } else {
                    lexError = ObjectPredicateError("unexpected character '\(scalar)'", column: column)
                    return
                }
            }
        }
        tokens.append((.end, scalars.count + 1))
    }

    mutating func parse() throws(ObjectPredicateError) -> ObjectPredicate.Node {
        if let lexError { throw lexError }
        let node = try parseOr()
        guard current == .end else { throw ObjectPredicateError("unexpected \(describe(current))", column: column) }
        return node
    }

    private var current: Token { tokens[position].token }
    private var column: Int { tokens[position].column }

    private func describe(_ token: Token) -> String {
        switch token {
        case .word(let word): return "'\(word)'"
        case .number(let number): return "'\(number)'"
        case .string(let string): return "\"\(string)\""
        case .symbol(let symbol): return "'\(symbol)'"
        case .end: return "end of predicate"
        }
    }

    private func isKeyword(_ token: Token, _ keywords: String...) -> Bool {
        if case .word(let word) = token { return keywords.contains(word.lowercased()) }
        if case .symbol(let symbol) = token { return keywords.contains(symbol) }
        return false
    }

    private mutating func parseOr() throws(ObjectPredicateError) -> ObjectPredicate.Node {
        let first = try parseAnd()
        guard isKeyword(current, "or", "||") else { return first }
        var terms = [first]
        while isKeyword(current, "or", "||") {
            position += 1
            terms.append(try parseAnd())
        }
        return .or(terms)
    }

    private mutating func parseAnd() throws(ObjectPredicateError) -> ObjectPredicate.Node {
        let first = try parseNot()
        guard isKeyword(current, "and", "&&") else { return first }
        var terms = [first]
        while isKeyword(current, "and", "&&") {
            position += 1
            terms.append(try parseNot())
        }
        return .and(terms)
    }

    private mutating func parseNot() throws(ObjectPredicateError) -> ObjectPredicate.Node {
        depth += 1
        defer { depth -= 1 }
        guard depth <= maximumDepth else {
            throw ObjectPredicateError("predicate nests more than \(maximumDepth) levels deep (parentheses and 'not')", column: column)
        }
        if isKeyword(current, "not", "!") {
            position += 1
            return .not(try parseNot())
        }
        if current == .symbol("(") {
            position += 1
            let node = try parseOr()
            guard current == .symbol(")") else { throw ObjectPredicateError("expected ')', found \(describe(current))", column: column) }
            position += 1
            return node
        }
        if isKeyword(current, "true", "false"), !isOperator(tokens[position + 1].token) {
            let value = isKeyword(current, "true")
            position += 1
            return .constant(value)
        }
        let comparisonColumn = column
        let left = try parseOperand()
        guard case .word(_) = current, isOperator(current) else {
            if case .symbol(let symbol) = current, isOperator(current) { return try finishComparison(left, symbol, comparisonColumn) }
            throw ObjectPredicateError("expected a comparison operator, found \(describe(current))", column: column)
        }
        guard case .word(let word) = current else { throw ObjectPredicateError("expected an operator", column: column) }
        return try finishComparison(left, word.lowercased(), comparisonColumn)
    }

    private func isOperator(_ token: Token) -> Bool {
        switch token {
        case .symbol(let symbol): return ["==", "=", "!=", "<>", "<", "<=", ">", ">="].contains(symbol)
        case .word(let word): return ["contains", "beginswith", "endswith", "in"].contains(word.lowercased())
        default: return false
        }
    }

    private mutating func finishComparison(
        _ left: ObjectPredicate.Operand, _ spelling: String,
        _ comparisonColumn: Int
    ) throws(ObjectPredicateError) -> ObjectPredicate.Node {
        position += 1
        let op: ObjectPredicate.Operator
        switch spelling {
        case "=", "==": op = .equal
        case "!=", "<>": op = .notEqual
        default:
            guard let parsed = ObjectPredicate.Operator(rawValue: spelling) else {
                throw ObjectPredicateError("unknown operator '\(spelling)'", column: comparisonColumn)
            }
            op = parsed
        }
        var caseInsensitive = false
        if current == .symbol("["), tokens[position + 1].token == .word("c"), tokens[position + 2].token == .symbol("]") {
            caseInsensitive = true
            position += 3
        }
        let right = try parseOperand()
        return .comparison(left, op, right, caseInsensitive: caseInsensitive, column: comparisonColumn)
    }

    private mutating func parseOperand() throws(ObjectPredicateError) -> ObjectPredicate.Operand {
        let start = column
        switch current {
        case .number(let text):
            position += 1
            return .literal(.number(text), column: start)
        case .string(let text):
            position += 1
            return .literal(.string(text), column: start)
        case .symbol("{"), .symbol("["):
            // `{a, b}`, or `[a, b]` as insert writes a list.
            let close = current == .symbol("{") ? "}" : "]"
            position += 1
            var literals: [ObjectPredicate.Literal] = []
            if current != .symbol(close) {
                repeat {
                    guard case .literal(let literal, _) = try parseOperand() else {
                        throw ObjectPredicateError("a list holds only literals", column: column)
                    }
                    literals.append(literal)
                    if current == .symbol(",") { position += 1 } else { break }
                } while true
            }
            guard current == .symbol(close) else {
                throw ObjectPredicateError("expected '\(close)', found \(describe(current))", column: column)
            }
            position += 1
            return .list(literals, column: start)
        case .word(let word):
            switch word.lowercased() {
            case "true", "false":
                position += 1
                return .literal(.bool(word.lowercased() == "true"), column: start)
            case "nil", "null":
                position += 1
                return .literal(.null, column: start)
            default:
                var path = [word]
                position += 1
                var count = false
                while current == .symbol(".") {
                    position += 1
                    guard case .word(let next) = current else {
                        throw ObjectPredicateError("expected a name after '.', found \(describe(current))", column: column)
                    }
                    position += 1
                    if next == "@count" { count = true; break }
                    path.append(next)
                }
                return .keyPath(path, count: count, column: start)
            }
        default:
            throw ObjectPredicateError("expected a value or a property name, found \(describe(current))", column: column)
        }
    }
}
