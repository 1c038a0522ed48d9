// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Folio",
    // What the code uses: Synchronization's `Mutex` (macOS 15, iOS 18), Observation
    // and Foundation's `#Predicate` (macOS 14). Linux needs no declaration.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Folio", targets: ["Folio"]),
        // The same library without the macros: for programs that need no model
        // classes (the dynamic API), built without waiting for swift-syntax.
        .library(name: "FolioCore", targets: ["FolioCore"]),
        .executable(name: "folio", targets: ["folio"]),
    ],
    dependencies: [
        // The @Model, @Relationship, @Attribute, @Transient and @ModelActor macros.
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "603.0.1"),
        // The library's diagnostics (failures no caller is left to hear), routed by the host program.
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // The folio command line only; the library depends on libxml2, swift-syntax (macros) and swift-log.
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // Documentation only: `swift package generate-documentation --target FolioCore` (a command plug-in, never linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        // Test-only: property-based testing of graphs and round trips.
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // Compiler plug-in: expands @Model and friends into code over Folio's typed layer.
        .macro(
            name: "FolioMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        // The library: schema, graph, store, context with undo, the dynamic API and
        // the typed layer. Everything but the macros' declarations.
        .target(
            name: "FolioCore",
            dependencies: ["CLibXML2", .product(name: "Logging", package: "swift-log")]
        ),
        // What apps import: FolioCore re-exported, with the macros declared on top.
        .target(
            name: "Folio",
            dependencies: ["FolioCore", "FolioMacros"]
        ),
        // The REPL's interpreter: commands in, text out; uses only the library's public
        // API, and no macros, so `swift run folio` never builds swift-syntax.
        .target(
            name: "FolioREPL",
            dependencies: ["FolioCore"]
        ),
        // The terminal front end: arguments, line editing, history, completion, script mode.
        .executableTarget(
            name: "folio",
            dependencies: [
                "FolioCore", "FolioREPL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Builds SampleDocuments/ through the public API: `swift run SampleGenerator SampleDocuments`.
        .executableTarget(
            name: "SampleGenerator",
            dependencies: ["Folio"]
        ),
        // Test support: edits a package through the main context with autosave on, then
        // exits at once; FolioCLITests runs it (found beside the test bundle) and kills it.
        .executableTarget(
            name: "AutosaveChild",
            dependencies: ["Folio"]
        ),
        // Test support shared by the test targets (the one copy of each): temporary folders
        // removed after the run, the seeded generator, the sample documents, running the built
        // `folio` and `AutosaveChild`, a package's document read as bytes without Folio's code,
        // and the library's log messages captured instead of printed.
        .target(
            name: "FolioTestSupport",
            dependencies: [.product(name: "Logging", package: "swift-log"),
                           .product(name: "PropertyBased", package: "swift-property-based")],
            path: "Tests/FolioTestSupport"
        ),
        // End-to-end: runs the built folio binary (found beside the test bundle).
        .testTarget(
            name: "FolioCLITests",
            dependencies: ["Folio", "FolioCore", "FolioTestSupport"]
        ),
        // The typed layer as a user sees it: plain `import Folio`, the seeds' code as written.
        .testTarget(
            name: "FolioModelTests",
            dependencies: [
                "Folio", "FolioCore", "FolioTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "FolioMacroTests",
            dependencies: [
                "FolioMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "FolioREPLTests",
            dependencies: ["FolioREPL", "Folio", "FolioCore", "FolioTestSupport",
                           .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "FolioTests",
            dependencies: [
                "Folio", "FolioCore", "FolioTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                // LayeringTests reads the library's sources as syntax trees.
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
            ],
            exclude: ["Support/FuzzCrashers", "Support/Format1Packages"]
        ),
        // A module as a new app's is built: the main actor as the default isolation, with
        // conformances isolated like their types. Its `@Model` classes are main-actor classes.
        .testTarget(
            name: "FolioMainActorModuleTests",
            dependencies: ["Folio", "FolioCore", "FolioTestSupport"],
            swiftSettings: [.defaultIsolation(MainActor.self), .enableUpcomingFeature("InferIsolatedConformances")]
        ),
        // SwiftData code as app developers write its tests (XCTest and Swift Testing,
        // in-memory and on-disk containers), with `import Folio` where it had `import SwiftData`.
        .testTarget(
            name: "SwiftDataCompatibilityTests",
            dependencies: ["Folio", "FolioCore", "FolioTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
