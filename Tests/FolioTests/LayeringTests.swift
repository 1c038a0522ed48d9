import Foundation
import Testing

/// docs/ARCHITECTURE.md's rule, checked on the sources: a layer's folder never
/// names a type declared in a folder above it. A layer that must reach code
/// above it declares a hook the layer above fills (`StoredGraphMigration`,
/// `ModelHooks`, `ModelValueChecks`, `SchemaAnnotation`), so this check sees
/// no name from above. Types only: a call by name of a member a layer above
/// adds in an extension is not caught here.
@Suite struct LayeringTests {
    /// The folders of `Sources/FolioCore`, lowest layer first.
    static let layers = ["Schema", "Graph", "Merge", "Store", "Query", "Migration", "Context", "Model"]

    /// The one exception, stated in ARCHITECTURE.md: `ModelContext` stores the
    /// typed layer's per-context state (Swift keeps stored properties in the
    /// class's own declaration) and never calls it.
    static let allowed: Set<String> = ["Context/ModelContext.swift: ModelRegistry", "Context/ModelContext.swift: ModelColumns"]

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/FolioCore")
    }

    /// A file's text without comments and string literals, so a name in a doc comment or a message does not count.
    static func code(_ text: String) -> String {
        var result = ""
        var scalars = Array(text.unicodeScalars)[...]
        while let scalar = scalars.first {
            if scalar == "/", scalars.dropFirst().first == "/" {
                scalars = scalars.drop { $0 != "\n" }
            } else if scalar == "/", scalars.dropFirst().first == "*" {
                scalars = scalars.dropFirst(2)
                while !scalars.isEmpty, !(scalars.first == "*" && scalars.dropFirst().first == "/") { scalars = scalars.dropFirst() }
                scalars = scalars.dropFirst(2)
            } else if scalar == "\"" {
                scalars = scalars.dropFirst()
                while let next = scalars.first, next != "\"", next != "\n" {
                    scalars = scalars.dropFirst(next == "\\" ? 2 : 1)
                }
                scalars = scalars.dropFirst()
                result.unicodeScalars.append(" ")
            } else {
                result.unicodeScalars.append(scalar)
                scalars = scalars.dropFirst()
            }
        }
        return result
    }

    /// The identifiers a text uses.
    static func identifiers(_ text: String) -> Set<String> {
        Set(text.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
    }

    /// The types a file declares at top level: `struct`, `enum`, `class`, `actor`, `protocol`, `typealias`.
    static func declaredTypes(_ code: String) -> [String] {
        let kinds: Set<Substring> = ["struct", "enum", "class", "actor", "protocol", "typealias"]
        return code.split(separator: "\n").compactMap { line -> String? in
            guard let first = line.first, first.isLetter || first == "@" else { return nil }
            let words = line.split { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" || $0 == "=" }
            guard let kind = words.firstIndex(where: { kinds.contains($0) }), kind + 1 < words.count,
                  words[..<kind].allSatisfy({ $0.hasPrefix("@") || ["public", "internal", "package", "final", "indirect"].contains($0) })
            else { return nil }
            return String(words[kind + 1])
        }
    }

    @Test("no folder of the library names a type declared in a layer above it")
    func layersNeverNameUpward() throws {
        var files: [(layer: Int, path: String, code: String)] = []
        for (layer, folder) in Self.layers.enumerated() {
            let url = Self.sources.appendingPathComponent(folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".swift") }.sorted()
            for name in names {
                let text = try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
                files.append((layer, folder + "/" + name, Self.code(text)))
            }
        }
        #expect(files.count > 100, "the sources were found")
        // Each type's lowest declaring layer (an extension's nested type is not a declaration here).
        var layerOf: [String: Int] = [:]
        for file in files {
            for type in Self.declaredTypes(file.code) { layerOf[type] = min(layerOf[type] ?? .max, file.layer) }
        }
        #expect(layerOf["ModelRegistry"] == Self.layers.firstIndex(of: "Model"))
        #expect(layerOf["ValueText"] == Self.layers.firstIndex(of: "Schema"))
        var violations: [String] = []
        for file in files {
            for name in Self.identifiers(file.code) {
                guard let layer = layerOf[name], layer > file.layer else { continue }
                let finding = "\(file.path): \(name)"
                if !Self.allowed.contains(finding) { violations.append(finding + " (declared in \(Self.layers[layer]))") }
            }
        }
        #expect(violations.sorted() == [])
    }
}
