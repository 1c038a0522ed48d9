import SwiftDiagnostics

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
    static let letProperty = error("letProperty", "a model's stored properties must be 'var' so the context can track and undo changes; use '@Transient' for a constant that is never saved")
    static let multipleBindings = error("multipleBindings", "declare each model property on its own line ('var a: Int' and 'var b: Int')")
    static let transientWithoutValue = error("transientWithoutValue", "a '@Transient' property needs an initial value, because models fetched from a document are created without one")
    static let requiredToOne = error("requiredToOne", "a relationship to one model must be optional: deleting the related model nullifies it")
    static let relationshipToValue = error("relationshipToValue", "'@Relationship' needs a model type (a '@Model' class, an optional of one, or an array of them); use '@Attribute' for values")
    static func inverseRoot(expected: String, found: String) -> FolioDiagnostic {
        error("inverseRoot", "the inverse must be a property of '\(expected)', the relationship's destination, not of '\(found)'")
    }
    static let relationshipOption = error("relationshipOption", "Folio does not support relationship options; uniqueness applies to attributes ('@Attribute(.unique)')")
    static let modelActorOnNonActor = error("modelActorOnNonActor", "'@ModelActor' can only be applied to an actor")
}

/// What a fix-it does, in a few words.
struct FolioFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "Folio", id: message) }
}
