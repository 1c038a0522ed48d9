import Foundation
import SwiftParser
import SwiftSyntax
import Testing
import FolioTestSupport

/// docs/ARCHITECTURE.md's rule, checked on the sources' syntax trees: a
/// layer's folder (its subfolders included) never names a type declared in a
/// folder above it — nested types and types declared in extensions count —
/// and never calls a member that a layer above adds to a type in an
/// extension (`Value.compare` added by the query layer and called by the
/// graph, say). A layer that must reach code above it declares a hook the
/// layer above fills (`StoredGraphMigration`, `ModelHooks`,
/// `ModelValueChecks`, `SchemaAnnotation`), so the check sees no name from above.
@Suite struct LayeringTests {
    /// The folders of `Sources/FolioCore`, lowest layer first.
    static let layers = ["Schema", "Graph", "Migration", "Merge", "Store", "Query", "Context", "Model"]

    /// Findings the rule lets through: none. (`ModelContext` holds the typed
    /// layer's per-context state as a `ModelHooks`, a hook it declares.)
    static let allowed: Set<String> = []

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/FolioCore")
    }

    /// What one file declares and names, read from its syntax tree.
    struct FileScan {
        /// Types declared anywhere in it: at top level, nested, in extensions.
        var types: Set<String> = []
        /// Members (functions, properties, subscripts' names aside) declared in
        /// a type's body or an extension's, by name.
        var members: Set<String> = []
        /// Members declared in extensions, with the type each extends (its
        /// last name component): what a layer adds to another's type.
        var extensionMembers: Set<ExtensionMember> = []
        /// Every identifier its code uses as a type or a value (comments and string literals are not code).
        var names: Set<String> = []
        /// The names it uses as members: after a dot, or called bare.
        var memberNames: Set<String> = []

        init(source: String) {
            let tree = Parser.parse(source: source)
            let collector = Collector(viewMode: .sourceAccurate)
            collector.walk(tree)
            (types, members, extensionMembers, memberNames) =
                (collector.types, collector.members, collector.extensionMembers, collector.memberNames)
            for token in tree.tokens(viewMode: .sourceAccurate) {
                if case .identifier(let text) = token.tokenKind { names.insert(text) }
            }
        }
    }

    /// A member an extension declares, and the type it extends.
    struct ExtensionMember: Hashable {
        var name: String
        var extendedType: String
    }

    /// Walks a file's tree for ``FileScan``.
    final class Collector: SyntaxVisitor {
        var types: Set<String> = []
        var members: Set<String> = []
        var extensionMembers: Set<ExtensionMember> = []
        var memberNames: Set<String> = []

        override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { types.insert(node.name.text); return .visitChildren }
        override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { types.insert(node.name.text); return .visitChildren }
        override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { types.insert(node.name.text); return .visitChildren }
        override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { types.insert(node.name.text); return .visitChildren }
        override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { types.insert(node.name.text); return .visitChildren }
        override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind { types.insert(node.name.text); return .visitChildren }

        override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
            if case .identifier(let name) = node.name.tokenKind { noteMember(name, of: Syntax(node)) }
            return .visitChildren
        }

        override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
            for binding in node.bindings {
                if let pattern = binding.pattern.as(IdentifierPatternSyntax.self) { noteMember(pattern.identifier.text, of: Syntax(node)) }
            }
            return .visitChildren
        }

        override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
            memberNames.insert(node.declName.baseName.text)
            return .visitChildren
        }

        override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
            if let callee = node.calledExpression.as(DeclReferenceExprSyntax.self) { memberNames.insert(callee.baseName.text) }
            return .visitChildren
        }

        /// Records a declaration that is a member: directly in a type's or an extension's body.
        private func noteMember(_ name: String, of node: Syntax) {
            // decl → MemberBlockItem → MemberBlockItemList → MemberBlock → the type or extension.
            guard let owner = node.parent?.parent?.parent?.parent else { return }
            if let extensionDecl = owner.as(ExtensionDeclSyntax.self) {
                members.insert(name)
                var extended = extensionDecl.extendedType.trimmedDescription
                if let generic = extended.firstIndex(of: "<") { extended = String(extended[..<generic]) }
                extensionMembers.insert(ExtensionMember(name: name, extendedType: String(extended.split(separator: ".").last ?? "")))
            } else if owner.is(StructDeclSyntax.self) || owner.is(ClassDeclSyntax.self) || owner.is(EnumDeclSyntax.self)
                || owner.is(ActorDeclSyntax.self) || owner.is(ProtocolDeclSyntax.self)
            {
                members.insert(name)
            }
        }
    }

    /// The upward references among `files` (layer index, path, source): a
    /// type a file names that no layer at or below its own declares but a
    /// layer above does; a member it uses that a layer above adds in an
    /// extension to a type of the file's layer or below, and that no layer at
    /// or below its own declares. (A member a layer adds to its own types, or
    /// to Foundation's, is no upward reference: a lower layer naming the same
    /// word means something else — `Set.insert`, not `ModelContext.insert`.)
    static func violations(in files: [ScannedFile]) -> [String] {
        let scans = files.map { $0.scan }
        var typeLayer: [String: Int] = [:], memberLayer: [String: Int] = [:]
        for (file, scan) in zip(files, scans) {
            for type in scan.types { typeLayer[type] = min(typeLayer[type] ?? .max, file.layer) }
            for member in scan.members { memberLayer[member] = min(memberLayer[member] ?? .max, file.layer) }
        }
        // Per member name: the layers adding it to a type of a lower layer, with that type's layer.
        var extensionLayer: [String: [(adds: Int, extended: Int)]] = [:]
        for (file, scan) in zip(files, scans) {
            for member in scan.extensionMembers {
                guard let extended = typeLayer[member.extendedType], extended < file.layer else { continue }
                extensionLayer[member.name, default: []].append((file.layer, extended))
            }
        }
        var found: [String] = []
        for (file, scan) in zip(files, scans) {
            for name in scan.names {
                guard let layer = typeLayer[name], layer > file.layer else { continue }
                found.append("\(file.path): \(name) (a type declared in \(layers[layer]))")
            }
            for name in scan.memberNames where typeLayer[name] == nil && (memberLayer[name] ?? .max) > file.layer {
                guard let layer = extensionLayer[name]?.filter({ $0.adds > file.layer && $0.extended <= file.layer }).map(\.adds).min()
                else { continue }
                found.append("\(file.path): \(name) (a member added in \(layers[layer]))")
            }
        }
        return found.filter { finding in !allowed.contains { finding.hasPrefix($0 + " (") } }.sorted()
    }

    /// A file's layer, its path under `Sources/FolioCore`, and its scan.
    typealias ScannedFile = (layer: Int, path: String, scan: FileScan)

    /// Every library file, scanned: parsing every file is nearly all the
    /// full check's work.
    static let scannedLibrary: Result<[ScannedFile], any Error> = Result {
        try libraryFiles().map { ($0.layer, $0.path, FileScan(source: $0.source)) }
    }

    /// Every Swift file under the layers' folders, subfolders included.
    static func libraryFiles() throws -> [(layer: Int, path: String, source: String)] {
        var files: [(layer: Int, path: String, source: String)] = []
        for (layer, folder) in layers.enumerated() {
            let url = sources.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: url.path) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let text = try String(contentsOf: url.appendingPathComponent(relative), encoding: .utf8)
                files.append((layer, folder + "/" + relative, text))
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    @Test("no folder of the library names a type declared in a layer above it, or calls a member a layer above adds", .tags(.long), .onlyInLongRuns)
    func layersNeverNameUpward() throws {
        let files = try Self.scannedLibrary.get()
        #expect(files.count > 100, "the sources were found")
        #expect(Self.violations(in: files) == [])
    }

    @Test("an upward reference planted in a lower layer is caught: a nested type, an extension member, a file in a subfolder")
    func plantedReferencesAreCaught() throws {
        // The two files declaring what the planted code names stand for the
        // library: the full scan is the long test above.
        var files = try Self.libraryFiles().filter { ["Graph/ObjectGraph.swift", "Context/ModelContext.swift"].contains($0.path) }
            .map { ($0.layer, $0.path, FileScan(source: $0.source)) }
        try #require(files.count == 2, "the declaring files were found")
        let graph = Self.layers.firstIndex(of: "Graph") ?? 0, context = Self.layers.firstIndex(of: "Context") ?? 0
        files.append(
            (
                context, "Context/Planted.swift",
                FileScan(
                    source: """
                        extension ObjectGraph {
                            struct PlantedNested {}
                            func plantedExtensionMember() -> Int { 1 }
                        }
                        """)
            ))
        files.append(
            (
                graph, "Graph/Sub/Planted.swift",
                FileScan(
                    source: """
                        // PlantedNested in a comment, and "plantedExtensionMember" in a string, do not count.
                        func planted(_ graph: ObjectGraph) -> Int {
                            let _: ObjectGraph.PlantedNested? = nil
                            return graph.plantedExtensionMember() + ModelContext.hashValueOfNothing
                        }
                        """)
            ))
        #expect(
            Self.violations(in: files) == [
                "Graph/Sub/Planted.swift: ModelContext (a type declared in Context)",
                "Graph/Sub/Planted.swift: PlantedNested (a type declared in Context)",
                "Graph/Sub/Planted.swift: plantedExtensionMember (a member added in Context)",
            ])
    }
}
