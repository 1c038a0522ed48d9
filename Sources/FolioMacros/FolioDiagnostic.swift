import SwiftDiagnostics
import SwiftSyntax

/// A diagnostic the Folio macros emit: what is wrong and, through a fix-it, how to mend it.
struct FolioDiagnostic: DiagnosticMessage, Error {
    let message: String
    let id: String
    let severity: DiagnosticSeverity

    var diagnosticID: MessageID { MessageID(domain: "Folio", id: id) }

    static func error(_ id: String, _ message: String) -> FolioDiagnostic {
        FolioDiagnostic(message: message, id: id, severity: .error)
    }

    static let modelOnNonClass = error("modelOnNonClass", "'@Model' can only be applied to a class; models have identity and are shared by reference")
    static let modelOnGenericClass = error("modelOnGenericClass", "'@Model' does not support generic classes; each model class is one entity")
    static let letProperty = error(
        "letProperty",
        "a model's stored properties must be 'var' so the context can track and undo changes; use '@Transient' for a constant that is never saved")
    static let multipleBindings = error("multipleBindings", "declare each model property on its own line ('var a: Int' and 'var b: Int')")
    static let transientWithoutValue = error(
        "transientWithoutValue", "a '@Transient' property needs an initial value, because models fetched from a document are created without one")
    static let relationshipToValue = error(
        "relationshipToValue", "'@Relationship' needs a model type (a '@Model' class, an optional of one, or an array of them); use '@Attribute' for values")
    static func inverseRoot(expected: String, found: String) -> FolioDiagnostic {
        error("inverseRoot", "the inverse must be a property of '\(expected)', the relationship's destination, not of '\(found)'")
    }
    static let relationshipOption = error(
        "relationshipOption", "a to-many relationship cannot be unique: it holds many objects; make the to-one side unique ('@Relationship(.unique)' there)")
    static let propertyObservers = error(
        "propertyObservers",
        "a persisted model property cannot have 'willSet' or 'didSet' observers: undo, redo and other contexts change it without calling them; observe the model with Observation, or mark the property '@Transient'"
    )
    static let uniqueOutsideModel = error("uniqueOutsideModel", "'#Unique' declares a model's uniqueness constraints; write it inside the '@Model' class")
    static func uniqueWithoutModel(_ name: String) -> FolioDiagnostic {
        error("uniqueWithoutModel", "'#Unique' needs the model class its key paths start from: '#Unique<\(name)>(...)'")
    }
    static let uniqueWithoutConstraints = error(
        "uniqueWithoutConstraints", "'#Unique' needs at least one constraint: an array of key paths, such as '[\\.name]'")
    static let emptyUniquenessConstraint = error("emptyUniquenessConstraint", "a uniqueness constraint needs at least one key path")
    static let modelActorOnNonActor = error("modelActorOnNonActor", "'@ModelActor' can only be applied to an actor")
}

/// What a fix-it does, in a few words.
struct FolioFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "Folio", id: message) }
}

extension FixIt.Change {
    /// Deletes `node` (an attribute, say) with the space or line break that
    /// separates it from what follows, keeping the indentation and comments before it.
    static func removing(_ node: some SyntaxProtocol) -> FixIt.Change {
        var end = node.endPosition
        if node.trailingTrivia.allSatisfy(\.isWhitespace),
            let next = node.lastToken(viewMode: .sourceAccurate)?.nextToken(viewMode: .sourceAccurate)
        {
            for piece in next.leadingTrivia {
                guard piece.isWhitespace else { break }
                end += piece.sourceLength
            }
        }
        return .replaceText(range: node.positionAfterSkippingLeadingTrivia..<end, with: "", in: Syntax(node))
    }

    /// Deletes one argument of an attribute with its comma, or the whole
    /// parenthesized list when it is the only argument.
    static func removing(_ argument: LabeledExprSyntax, from attribute: AttributeSyntax) -> FixIt.Change {
        guard let list = attribute.arguments?.as(LabeledExprListSyntax.self)
        else { return .replaceText(range: argument.trimmedRange, with: "", in: Syntax(argument)) }
        return removing(argument, from: list, parentheses: (attribute.leftParen, attribute.rightParen), in: Syntax(attribute))
    }

    /// Deletes one argument of a freestanding macro with its comma.
    static func removing(_ argument: LabeledExprSyntax, from expansion: some FreestandingMacroExpansionSyntax) -> FixIt.Change {
        removing(argument, from: expansion.arguments, parentheses: (nil, nil), in: Syntax(expansion))
    }

    /// Deletes one argument of a list with its comma, or everything between
    /// `parentheses` when it is the only argument and they are given.
    private static func removing(
        _ argument: LabeledExprSyntax, from list: LabeledExprListSyntax,
        parentheses: (TokenSyntax?, TokenSyntax?), in root: Syntax
    ) -> FixIt.Change {
        guard let index = list.index(of: argument)
        else { return .replaceText(range: argument.trimmedRange, with: "", in: Syntax(argument)) }
        let range: Range<AbsolutePosition>
        if list.count == 1, let open = parentheses.0, let close = parentheses.1 {
            range = open.positionAfterSkippingLeadingTrivia..<close.endPositionBeforeTrailingTrivia
        } else if list.index(after: index) != list.endIndex {
            range = argument.positionAfterSkippingLeadingTrivia..<list[list.index(after: index)].positionAfterSkippingLeadingTrivia
        } else if index != list.startIndex, let comma = list[list.index(before: index)].trailingComma {
            range = comma.positionAfterSkippingLeadingTrivia..<argument.endPositionBeforeTrailingTrivia
        } else {
            range = argument.trimmedRange
        }
        return .replaceText(range: range, with: "", in: root)
    }

    /// Replaces a keyword (`struct`, `class`) by another, keeping its trivia.
    static func replacing(_ keyword: TokenSyntax, with newKeyword: Keyword) -> FixIt.Change {
        .replace(oldNode: Syntax(keyword), newNode: Syntax(keyword.with(\.tokenKind, .keyword(newKeyword))))
    }
}
