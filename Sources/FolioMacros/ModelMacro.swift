import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a class into a `PersistentModel` whose stored properties are
/// views over a context's object graph.
///
/// - member: the backing data, `schemaMetadata`, `init(backingData:)`, and a
///   memberwise initializer when the class declares none;
/// - member attribute: `@_PersistedProperty` on every persisted stored property;
/// - extension: the `PersistentModel` (and so `Observable`) conformance.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            diagnoseNonClass(node, declaration, in: context)
            return []
        }
        if let generics = classDecl.genericParameterClause {
            context.diagnose(Diagnostic(node: generics, message: FolioDiagnostic.modelOnGenericClass))
            return []
        }
        let className = classDecl.name.trimmedDescription
        let properties = ModelProperty.all(in: classDecl.memberBlock.members)
        for property in properties { diagnose(property, in: context) }
        let persisted = persistedProperties(properties)

        let access = accessModifier(of: classDecl)
        let metadata = persisted.map { metadataEntry(for: $0, in: className) }
        // The compiler names the conformances the class does not have yet: a
        // subclass of a `@Model` class inherits `PersistentModel`.
        if classDecl.inheritanceClause != nil, !protocols.contains(where: { $0.trimmedDescription.hasSuffix("PersistentModel") }) {
            return subclassMembers(persisted, metadata: metadata, className: className, access: access)
        }
        // A model a context makes keeps its values in the document: its properties' markers hold nothing.
        // Its `_$backingData` starts as the backing data the context is making it with
        // (`_initial(for:)`), so `init(backingData:)` stores nothing again: a retain and a
        // release less per fetched model. The markers go first: `self` is read after.
        let storage = persisted.map { "self._\($0.name) = Folio._PersistedPropertyMarker()" }
        let initBody = storage + ["if self._$backingData !== backingData {", "self._$backingData = backingData", "}"]

        var members: [DeclSyntax] = [
            // The backing data of the object a context is making the model for; else a
            // shared placeholder until an initializer sets a property (which makes the
            // model's own). So a model a context makes allocates one backing data.
            // Unchecked exclusivity: every property access reads it, and the check
            // would cost more than the read.
            "@exclusivity(unchecked) private nonisolated(unsafe) var _$backingData: Folio.BackingData = Folio.BackingData._initial(for: \(raw: className).self)",
            // Which object a model its context made stands for, while it shares the
            // context's backing data (one for all the models a fetch makes).
            "@exclusivity(unchecked) \(raw: access)nonisolated(unsafe) var _$sharedRow = Folio._SharedBackingRow()",
            "\(raw: access)static var _$sharesBackingData: Bool { true }",
        ]
        // A fetch may make models on every core when making one runs only the initializer
        // below and literal initial values; whether that initializer is isolated (to the
        // main actor, say, by the class or the module's default) is known only to the compiler.
        let initializerIsNonisolated = "Folio.BackingData._isNonisolated(\(className).init(backingData:))"
        if Self.initialValuesAreLiterals(classDecl.memberBlock.members) {
            members.append("nonisolated \(raw: access)static var _$makesModelsAnywhere: Bool { \(raw: initializerIsNonisolated) }")
        }
        members += [
            "\(raw: access)var _$heldBackingData: Folio.BackingData { _$backingData }",
            """
            \(raw: access)var persistentBackingData: Folio.BackingData {
                get { Folio.BackingData._resolved(&_$backingData, of: self) }
                set {
                    _$backingData._modelWillGo(ObjectIdentifier(self), _$sharedRow)
                    _$sharedRow = Folio._SharedBackingRow()
                    _$backingData = newValue
                }
            }
            """,
            """
            \(raw: access)static var schemaMetadata: [Folio.Schema.PropertyMetadata] {
                [\(raw: metadata.isEmpty ? "" : "\n" + metadata.joined(separator: ",\n") + "\n")]
            }
            """,
            // What a `@Model` subclass overrides with the properties it adds (model inheritance).
            "\(raw: access)class var _$ownSchemaMetadata: [Folio.Schema.PropertyMetadata] { schemaMetadata }",
            """
            \(raw: access)required init(backingData: Folio.BackingData) {\(raw: initBody.map { "\n" + $0 }.joined())
            }
            """,
        ]
        let declaresInit = classDecl.memberBlock.members.contains { $0.decl.is(InitializerDeclSyntax.self) }
        if !declaresInit { members.append(memberwiseInitializer(persisted, access: access)) }
        // Its context holds the instance unretained until this `deinit` says it is
        // going; a class with a `deinit` of its own is held weakly instead. So is a
        // class isolated to a global actor (by its attribute or the module's default,
        // which only the compiler knows, as for `_$makesModelsAnywhere`): it is
        // Sendable, so its last reference may go, and its `deinit` run, on any
        // thread, where the context's registry must not be touched.
        let declaresDeinit = classDecl.memberBlock.members.contains { $0.decl.is(DeinitializerDeclSyntax.self) }
        if !declaresDeinit {
            members.append("nonisolated \(raw: access)static var _$unregistersOnDeinit: Bool { \(raw: initializerIsNonisolated) }")
            members.append(
                """
                deinit {
                    if \(raw: className)._$unregistersOnDeinit {
                        _$backingData._modelWillGo(ObjectIdentifier(self), _$sharedRow)
                    }
                }
                """)
        }
        return members
    }

    /// The members of a subclass of a `@Model` class (SwiftData's model
    /// inheritance): the superclass has the backing data, `schemaMetadata`
    /// and the rest; the subclass adds
    ///
    /// - storage of its own for the backing data (`_$backingData`), which its
    ///   properties' init accessors can set before `super.init` (the
    ///   superclass's storage starts with the same backing data, see
    ///   `BackingData._initialOfSubclass`), kept the same as the superclass's;
    /// - its own properties' metadata (`_$ownSchemaMetadata`, the class
    ///   property every `@Model` class declares);
    /// - `init(backingData:)`, calling the superclass's.
    static func subclassMembers(
        _ persisted: [ModelProperty], metadata: [String], className: String,
        access: String
    ) -> [DeclSyntax] {
        let markers = persisted.map { "self._\($0.name) = Folio._PersistedPropertyMarker()" }
        let initBody =
            markers + [
                "if self._$backingData !== backingData {", "self._$backingData = backingData", "}",
                "super.init(backingData: backingData)",
            ]
        return [
            "@exclusivity(unchecked) private nonisolated(unsafe) var _$backingData: Folio.BackingData = Folio.BackingData._initialOfSubclass(\(raw: className).self)",
            """
            override \(raw: access)class var _$ownSchemaMetadata: [Folio.Schema.PropertyMetadata] {
                [\(raw: metadata.isEmpty ? "" : "\n" + metadata.joined(separator: ",\n") + "\n")]
            }
            """,
            """
            override \(raw: access)var persistentBackingData: Folio.BackingData {
                get {
                    let backing = super.persistentBackingData
                    if _$backingData !== backing {
                        _$backingData = backing
                    }
                    return backing
                }
                set {
                    super.persistentBackingData = newValue
                    _$backingData = newValue
                }
            }
            """,
            """
            \(raw: access)required init(backingData: Folio.BackingData) {\(raw: initBody.map { "\n" + $0 }.joined())
            }
            """,
        ]
    }

    /// Whether the class's first inherited type looks like a superclass
    /// rather than a protocol: the member-attribute role sees only syntax
    /// (the member role knows, from the conformances the compiler passes).
    /// A subclass's own properties are read by name, their positions in the
    /// entity being known only at run time; a class taken for a subclass
    /// wrongly (a protocol of its own listed first) is only read by name too.
    static func looksLikeSubclass(_ classDecl: ClassDeclSyntax) -> Bool {
        guard let first = classDecl.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription else { return false }
        let name = first.split(separator: ".").last.map(String.init) ?? first
        return !knownProtocols.contains(name) && !name.hasPrefix("any ") && !first.contains("&")
    }

    /// Protocols a model class commonly lists first; a superclass must be listed first.
    static let knownProtocols: Set<String> = [
        "PersistentModel", "Observable", "ObservableObject", "Identifiable", "Hashable", "Equatable", "Comparable",
        "Codable", "Encodable", "Decodable", "Sendable", "AnyObject", "CustomStringConvertible",
        "CustomDebugStringConvertible", "Transferable", "CaseIterable", "RawRepresentable", "Error", "LocalizedError",
    ]

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        // A class @Model rejects gets no members, so its properties must stay plain.
        // `_name` is a user's property like any other (the compiler gives member
        // attributes only to written members, never to the `_name` peers); `_$`
        // names can only come from macros.
        guard let classDecl = declaration.as(ClassDeclSyntax.self), classDecl.genericParameterClause == nil,
            let variable = member.as(VariableDeclSyntax.self),
            let property = ModelProperty(variable), property.isSingleBinding,
            !property.isTransient, !variable.isLet, !property.hasObservers, !property.name.hasPrefix("_$"),
            variable.attribute(named: "_PersistedProperty") == nil
        else { return [] }
        // A subclass's own properties follow its superclass's, whose count is known only at run time.
        if looksLikeSubclass(classDecl) { return ["@_PersistedProperty"] }
        // Its position in `schemaMetadata`, by which reads find its column without a name look-up.
        let persisted = persistedProperties(ModelProperty.all(in: classDecl.memberBlock.members))
        guard let ordinal = persisted.firstIndex(where: { $0.name == property.name }) else { return ["@_PersistedProperty"] }
        return ["@_PersistedProperty(\(raw: ordinal))"]
    }

    /// Whether every stored property's initial value, which `init(backingData:)`
    /// evaluates, is a literal: a number, string, Boolean or `nil`, an array or
    /// dictionary of them, an empty one (`[T]()`), or a member named alone
    /// (`.draft`). Any other expression may be code that must not run on
    /// another thread, or twice at once; so may a property wrapper's
    /// initializer, whatever its initial value: a stored property with an
    /// attribute other than Folio's and Observation's markers does not count
    /// as literal.
    static func initialValuesAreLiterals(_ members: MemberBlockItemListSyntax) -> Bool {
        members.allSatisfy { item in
            guard let variable = item.decl.as(VariableDeclSyntax.self), variable.isStoredInstanceProperty else { return true }
            let onlyMarkers = variable.attributes.allSatisfy { element in
                guard let attribute = element.as(AttributeSyntax.self) else { return false }
                return markerAttributes.contains(attribute.attributeName.trimmedDescription)
            }
            return onlyMarkers && variable.bindings.allSatisfy { $0.initializer.map { isLiteral($0.value) } ?? true }
        }
    }

    /// The attributes of a stored property that run no code when it is initialized.
    private static let markerAttributes: Set<String> = [
        "Attribute", "Relationship", "Transient", "_PersistedProperty", "ObservationIgnored",
        "Folio.Attribute", "Folio.Relationship", "Folio.Transient", "Folio._PersistedProperty", "Observation.ObservationIgnored",
    ]

    private static func isLiteral(_ expression: ExprSyntax) -> Bool {
        if expression.is(IntegerLiteralExprSyntax.self) || expression.is(FloatLiteralExprSyntax.self)
            || expression.is(BooleanLiteralExprSyntax.self) || expression.is(NilLiteralExprSyntax.self)
        {
            return true
        }
        if let string = expression.as(StringLiteralExprSyntax.self) {
            return string.segments.allSatisfy { $0.is(StringSegmentSyntax.self) }
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self) {
            return prefix.operator.text == "-" && isLiteral(prefix.expression)
        }
        if let array = expression.as(ArrayExprSyntax.self) {
            return array.elements.allSatisfy { isLiteral($0.expression) }
        }
        if let dictionary = expression.as(DictionaryExprSyntax.self) {
            guard case .elements(let elements) = dictionary.content else { return true }
            return elements.allSatisfy { isLiteral($0.key) && isLiteral($0.value) }
        }
        if let member = expression.as(MemberAccessExprSyntax.self) {
            return member.base == nil
        }
        if let call = expression.as(FunctionCallExprSyntax.self) {
            // `[T]()` and `[K: V]()`: an empty collection of a written type.
            return call.arguments.isEmpty && call.trailingClosure == nil
                && (call.calledExpression.is(ArrayExprSyntax.self) || call.calledExpression.is(DictionaryExprSyntax.self))
        }
        return false
    }

    /// The properties `@Model` persists, in declaration order: `schemaMetadata`'s order.
    static func persistedProperties(_ properties: [ModelProperty]) -> [ModelProperty] {
        properties.filter { !$0.isTransient && !$0.declaration.isLet && $0.isSingleBinding && !$0.hasObservers }
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self), classDecl.genericParameterClause == nil,
            !protocols.isEmpty
        else { return [] }
        // A subclass of a `@Model` class inherits both (the compiler passes neither).
        // Observable is named too: a refinement alone does not give a class its conformance.
        let names = protocols.map { $0.trimmedDescription.hasSuffix("PersistentModel") ? "Folio.PersistentModel" : "Observation.Observable" }
        let isolation = conformanceIsolation(of: classDecl)
        let decl: DeclSyntax = "\(raw: isolation.extension)extension \(type.trimmed): \(raw: isolation.conformance)\(raw: names.joined(separator: ", ")) {}"
        return decl.as(ExtensionDeclSyntax.self).map { [$0] } ?? []
    }

    /// The conformances' isolation, spelled as the class's own: a `@MainActor` class's
    /// members (its properties' key paths in `schemaMetadata`, its initializers) are
    /// isolated, so its conformance is too: the compiler then lets a program use it
    /// (a fetch, an insert) only on the main actor.
    /// A `nonisolated` class's extension says so again, or a module whose default
    /// isolation is the main actor would isolate the extension and what the compiler
    /// writes in it (`hashValue`); otherwise the module's default (and its inference
    /// of isolated conformances) decides.
    static func conformanceIsolation(of classDecl: ClassDeclSyntax) -> (extension: String, conformance: String) {
        if classDecl.modifiers.contains(where: { $0.name.tokenKind == .keyword(.nonisolated) }) { return ("nonisolated ", "") }
        let isMainActor = ["MainActor", "_Concurrency.MainActor"].contains { classDecl.attribute(named: $0) != nil }
        return ("", isMainActor ? "@MainActor " : "")
    }

    // MARK: Generated code

    /// The access the generated members need to witness `PersistentModel`'s
    /// requirements: `public` for a public or open class, `package` for a package one.
    static func accessModifier(of classDecl: ClassDeclSyntax) -> String {
        for modifier in classDecl.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    /// One `Schema.PropertyMetadata` entry; its overloads decide from the key
    /// path's type whether the property is an attribute or a relationship.
    static func metadataEntry(for property: ModelProperty, in className: String) -> String {
        let keyPath = "\\\(className).\(property.spelledName)"
        var arguments = ["\"\(property.name)\"", property.isCodable ? "codable: " + keyPath : keyPath]
        if let relationship = property.relationship {
            arguments += relationshipArguments(relationship)
        } else {
            if let initializer = property.initializer { arguments.append("defaultValue: \(initializer)") }
            if let attribute = property.attribute {
                let forwarded = attribute.arguments?.as(LabeledExprListSyntax.self)?.trimmedDescription ?? ""
                arguments.append("attribute: .init(\(forwarded))")
            }
        }
        return "Folio.Schema.PropertyMetadata(\(arguments.joined(separator: ", ")))"
    }

    /// The `@Relationship` arguments, spelled for the metadata initializer; the
    /// inverse's name is taken from its key path, which the compiler checks
    /// against the destination type.
    static func relationshipArguments(_ attribute: AttributeSyntax) -> [String] {
        guard let list = attribute.arguments?.as(LabeledExprListSyntax.self) else { return [] }
        var arguments: [String] = []
        var options: [String] = []
        for argument in list {
            let value = argument.expression.trimmedDescription
            switch argument.label?.text {
            case nil:
                if deleteRuleName(argument.expression) != nil {
                    arguments.append("deleteRule: \(value)")
                } else {
                    options.append(value)
                }
            case "hashModifier":
                continue
            case "inverse":
                arguments.append("inverse: \(value)")
                if let name = keyPathComponents(argument.expression)?.property {
                    arguments.append("inverseName: \"\(name)\"")
                }
            case let label?:
                arguments.append("\(label): \(value)")
            }
        }
        // Options come first, as in `@Relationship(.unique, deleteRule: …)`.
        return (options.isEmpty ? [] : ["options: [\(options.joined(separator: ", "))]"]) + arguments
    }

    static let deleteRules: Set<String> = ["cascade", "nullify", "deny", "noAction"]

    static func deleteRuleName(_ expression: ExprSyntax) -> String? {
        guard let member = expression.as(MemberAccessExprSyntax.self),
            deleteRules.contains(member.declName.baseName.text)
        else { return nil }
        return member.declName.baseName.text
    }

    /// `\Root.property` → (Root, property).
    static func keyPathComponents(_ expression: ExprSyntax) -> (root: String?, property: String)? {
        guard let keyPath = expression.as(KeyPathExprSyntax.self),
            let last = keyPath.components.last?.component.as(KeyPathPropertyComponentSyntax.self)
        else { return nil }
        return (keyPath.root?.trimmedDescription, last.declName.baseName.identifier?.name ?? last.declName.baseName.text)
    }

    /// The initializer a class without one gets: a parameter for each persisted
    /// property whose type is written out, defaulting to its initial value (or
    /// `nil` for optionals), as a struct's memberwise initializer does.
    static func memberwiseInitializer(_ properties: [ModelProperty], access: String) -> DeclSyntax {
        var parameters: [String] = []
        var assignments: [String] = []
        for property in properties {
            guard let type = property.type else { continue }
            var parameter = "\(property.spelledName): \(type)"
            if let initializer = property.initializer { parameter += " = \(initializer)" } else if property.isOptional { parameter += " = nil" }
            parameters.append(parameter)
            assignments.append("self.\(property.spelledName) = \(property.spelledName)")
        }
        return """
            \(raw: access)init(\(raw: parameters.joined(separator: ", "))) {\(raw: assignments.map { "\n" + $0 }.joined())
            }
            """
    }

    // MARK: Diagnostics

    static func diagnoseNonClass(_ node: AttributeSyntax, _ declaration: some DeclGroupSyntax, in context: some MacroExpansionContext) {
        var fixIts: [FixIt] = []
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            fixIts.append(
                FixIt(
                    message: FolioFixIt(message: "Make it a class"),
                    changes: [.replacing(structDecl.structKeyword, with: .class)]))
        }
        context.diagnose(Diagnostic(node: node, message: FolioDiagnostic.modelOnNonClass, fixIts: fixIts))
    }

    static func diagnose(_ property: ModelProperty, in context: some MacroExpansionContext) {
        let variable = property.declaration
        if variable.bindings.count > 1 {
            context.diagnose(
                Diagnostic(
                    node: variable, message: FolioDiagnostic.multipleBindings,
                    fixIts: [
                        FixIt(
                            message: FolioFixIt(message: "Declare each property on its own line"),
                            changes: [splitting(variable)])
                    ]))
            return
        }
        if variable.isLet, !property.isTransient {
            context.diagnose(
                Diagnostic(
                    node: variable.bindingSpecifier, message: FolioDiagnostic.letProperty,
                    fixIts: [
                        FixIt(
                            message: FolioFixIt(message: "Replace 'let' with 'var'"),
                            changes: [.replacing(variable.bindingSpecifier, with: .var)])
                    ]))
        }
        if !property.isTransient, property.hasObservers, let observers = variable.bindings.first?.accessorBlock {
            // The property becomes computed (get/set over the backing data), which
            // cannot carry observers; silently dropping them would be worse.
            context.diagnose(
                Diagnostic(
                    node: observers, message: FolioDiagnostic.propertyObservers,
                    fixIts: [FixIt(message: FolioFixIt(message: "Remove the observers"), changes: [removingObservers(observers)])]))
        }
        if property.isTransient, property.initializer == nil, !property.isOptional {
            context.diagnose(Diagnostic(node: variable, message: FolioDiagnostic.transientWithoutValue))
        }
        if let relationship = property.relationship { diagnose(relationship, of: property, in: context) }
    }

    /// `var name: String { didSet {…} }` → `var name: String`: from the end of
    /// what precedes the block to its closing brace, so what follows stays put.
    static func removingObservers(_ observers: AccessorBlockSyntax) -> FixIt.Change {
        let start =
            observers.previousToken(viewMode: .sourceAccurate)?.endPositionBeforeTrailingTrivia
            ?? observers.positionAfterSkippingLeadingTrivia
        return .replaceText(range: start..<observers.endPositionBeforeTrailingTrivia, with: "", in: Syntax(observers))
    }

    /// `var a, b: Int = 0, c = ""` → one declaration per binding, each with the
    /// attributes and modifiers, on lines indented as the original; a binding
    /// with neither type nor value takes the type written after it, as Swift reads it.
    static func splitting(_ variable: VariableDeclSyntax) -> FixIt.Change {
        let indentation = Trivia(pieces: variable.leadingTrivia.reversed().prefix { !$0.isNewline }.reversed()).description
        let prefix =
            variable.attributes.trimmedDescription + (variable.attributes.isEmpty ? "" : " ")
            + variable.modifiers.map { $0.trimmedDescription + " " }.joined()
            + variable.bindingSpecifier.text + " "
        let bindings = Array(variable.bindings)
        let declarations = bindings.indices.map { index -> String in
            var binding = bindings[index].with(\.trailingComma, nil).trimmed
            if binding.typeAnnotation == nil, binding.initializer == nil, binding.accessorBlock == nil,
                let type = bindings[index...].lazy.compactMap(\.typeAnnotation).first
            {
                binding.typeAnnotation = type.trimmed
            }
            return prefix + binding.description
        }
        return .replaceText(
            range: variable.positionAfterSkippingLeadingTrivia..<variable.endPositionBeforeTrailingTrivia,
            with: declarations.joined(separator: "\n" + indentation), in: Syntax(variable))
    }

    static func diagnose(_ relationship: AttributeSyntax, of property: ModelProperty, in context: some MacroExpansionContext) {
        let destination = RelationshipType(property)
        if case .value? = destination {
            // A value property is an attribute without any mark, so the fix is to drop the mark.
            context.diagnose(
                Diagnostic(
                    node: relationship, message: FolioDiagnostic.relationshipToValue,
                    fixIts: [
                        FixIt(
                            message: FolioFixIt(message: "Remove '@Relationship'"),
                            changes: [.removing(relationship)])
                    ]))
            return
        }
        guard let list = relationship.arguments?.as(LabeledExprListSyntax.self) else { return }
        for argument in list {
            // `.unique` makes a to-one relationship unique (a constraint of one member);
            // a to-many one holds many objects, so it cannot.
            if argument.label == nil, deleteRuleName(argument.expression) == nil, case .many? = destination {
                context.diagnose(
                    Diagnostic(
                        node: argument, message: FolioDiagnostic.relationshipOption,
                        fixIts: [
                            FixIt(
                                message: FolioFixIt(message: "Remove '\(argument.expression.trimmedDescription)'"),
                                changes: [.removing(argument, from: relationship)])
                        ]))
            }
            guard argument.label?.text == "inverse",
                let keyPath = argument.expression.as(KeyPathExprSyntax.self),
                let root = keyPath.root,
                let expected = destination?.modelName,
                !sameTypeName(root.trimmedDescription, expected)
            else { continue }
            let newRoot = TypeSyntax(IdentifierTypeSyntax(name: .identifier(expected))).with(\.leadingTrivia, root.leadingTrivia).with(
                \.trailingTrivia, root.trailingTrivia)
            context.diagnose(
                Diagnostic(
                    node: root, message: FolioDiagnostic.inverseRoot(expected: expected, found: root.trimmedDescription),
                    fixIts: [
                        FixIt(
                            message: FolioFixIt(message: "Use '\\\(expected).\(keyPathComponents(argument.expression)?.property ?? "")'"),
                            changes: [.replace(oldNode: Syntax(root), newNode: Syntax(newRoot))])
                    ]))
        }
    }
}

/// Whether two spellings of a type name may name the same type: `Cat` and
/// `Zoo.Cat` might, so a module-qualified name is not reported as a mismatch.
func sameTypeName(_ lhs: String, _ rhs: String) -> Bool {
    lhs == rhs || lhs.split(separator: ".").last == rhs.split(separator: ".").last
}

/// What a relationship property's written type (or initializer) says about its destination.
enum RelationshipType {
    case optionalOne(String)
    case requiredOne(String)
    case many(String)
    case value(String)

    /// Types that are values, never models: a relationship to one is a mistake.
    static let valueTypes: Set<String> = [
        "String", "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Double", "Float", "Date", "Data", "UUID", "URL", "Decimal", "Value", "Character", "Substring",
    ]

    var modelName: String? {
        switch self {
        case .optionalOne(let name), .requiredOne(let name), .many(let name): return name
        case .value: return nil
        }
    }

    init?(_ property: ModelProperty) {
        if let type = property.type {
            self.init(type)
        } else if let initializer = property.initializer,
            let call = initializer.as(FunctionCallExprSyntax.self),
            let array = call.calledExpression.as(ArrayExprSyntax.self),
            let element = array.elements.first?.expression
        {
            // `var animals = [Animal]()`
            self.init(elementName: element.trimmedDescription, many: true)
        } else {
            return nil
        }
    }

    init?(_ type: TypeSyntax) {
        if let optional = type.as(OptionalTypeSyntax.self) {
            guard let inner = RelationshipType(optional.wrappedType) else { return nil }
            switch inner {
            case .requiredOne(let name): self = .optionalOne(name)
            default: self = inner
            }
        } else if let array = type.as(ArrayTypeSyntax.self) {
            self.init(elementName: array.element.trimmedDescription, many: true)
        } else if let identifier = type.as(IdentifierTypeSyntax.self) {
            if identifier.name.text == "Optional" || identifier.name.text == "Array",
                let argument = identifier.genericArgumentClause?.arguments.first?.argument.as(TypeSyntax.self)
            {
                if identifier.name.text == "Array" {
                    self.init(elementName: argument.trimmedDescription, many: true)
                } else {
                    guard let inner = RelationshipType(argument) else { return nil }
                    if case .requiredOne(let name) = inner { self = .optionalOne(name) } else { self = inner }
                }
            } else {
                self.init(elementName: identifier.trimmedDescription, many: false)
            }
        } else if type.is(DictionaryTypeSyntax.self) {
            self = .value(type.trimmedDescription)
        } else {
            return nil
        }
    }

    init(elementName: String, many: Bool) {
        if RelationshipType.valueTypes.contains(elementName) {
            self = .value(elementName)
        } else {
            self = many ? .many(elementName) : .requiredOne(elementName)
        }
    }
}
