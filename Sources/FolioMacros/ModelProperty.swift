import SwiftSyntax

/// A stored property of a `@Model` class, as the macros see it in the source.
///
/// The macros work on syntax alone: a property's type is known only when it is
/// written out, so everything that needs the real type (attribute or
/// relationship, value type, optionality) is left to the overloads of
/// `Schema.PropertyMetadata` the expansion calls.
struct ModelProperty {
    let declaration: VariableDeclSyntax
    /// The property's name as the document and the `_name` storage peer spell
    /// it: `class` for a property declared as `` `class` ``.
    let name: String
    /// The name as code referring to the property spells it (`` `class` ``).
    let spelledName: String
    /// The written type, if any (`var animals = [Animal]()` has none), trimmed for generated code.
    let type: TypeSyntax?
    /// The written type as it stands in the source, for diagnostics and fix-its
    /// (a trimmed copy is detached from the source and has no location).
    let writtenType: TypeSyntax?
    let initializer: ExprSyntax?
    let isTransient: Bool
    let attribute: AttributeSyntax?
    let relationship: AttributeSyntax?

    /// Whether `@Attribute` names the `.codable` option: the property is stored
    /// through its `Codable` form, whatever its type.
    var isCodable: Bool {
        guard let arguments = attribute?.arguments?.as(LabeledExprListSyntax.self) else { return false }
        return arguments.contains { argument in
            argument.label == nil && argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "codable"
        }
    }

    /// Whether the declaration is one property the macros can expand (not `var a: Int, b: Int`).
    var isSingleBinding: Bool { declaration.bindings.count == 1 }

    /// Whether the property has `willSet`/`didSet` observers (which `@Model` refuses).
    var hasObservers: Bool { declaration.bindings.first?.accessorBlock != nil }

    /// Whether the written type is optional (`T?`, `T!`, `Optional<T>`).
    var isOptional: Bool {
        guard let type else { return false }
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional" { return true }
        return false
    }

    /// The stored properties of a class body that `@Model` persists or keeps
    /// transient; computed, static and lazy properties are not model properties.
    static func all(in members: MemberBlockItemListSyntax) -> [ModelProperty] {
        members.compactMap { item in
            guard let variable = item.decl.as(VariableDeclSyntax.self) else { return nil }
            return ModelProperty(variable)
        }
    }

    init?(_ variable: VariableDeclSyntax) {
        guard variable.isStoredInstanceProperty,
            let binding = variable.bindings.first,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        declaration = variable
        name = pattern.identifier.identifier?.name ?? pattern.identifier.text
        spelledName = pattern.identifier.trimmedDescription
        type = binding.typeAnnotation?.type.trimmed
        writtenType = binding.typeAnnotation?.type
        initializer = binding.initializer?.value.trimmed
        isTransient = variable.attribute(named: "Transient") != nil
        attribute = variable.attribute(named: "Attribute")
        relationship = variable.attribute(named: "Relationship")
    }
}

extension VariableDeclSyntax {
    /// Whether this declares instance storage: not static, not lazy, no getter.
    var isStoredInstanceProperty: Bool {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.static), .keyword(.class), .keyword(.lazy): return false
            default: continue
            }
        }
        guard bindings.count == 1, let binding = bindings.first else { return bindings.count > 1 }
        guard let accessors = binding.accessorBlock else { return true }
        switch accessors.accessors {
        case .getter: return false
        case .accessors(let list):
            // Observers (willSet/didSet) keep a property stored; get/set/init make it computed.
            return list.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
        }
    }

    var isLet: Bool { bindingSpecifier.tokenKind == .keyword(.let) }
}

extension WithAttributesSyntax {
    /// The attribute spelled `name` (as written: `MainActor` and
    /// `_Concurrency.MainActor` are two names), if the declaration has one.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in attributes {
            if let attribute = element.as(AttributeSyntax.self), attribute.attributeName.trimmedDescription == name {
                return attribute
            }
        }
        return nil
    }
}
