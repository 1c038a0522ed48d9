// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Folio",
    products: [
        .library(name: "Folio", targets: ["Folio"]),
        .executable(name: "folio", targets: ["folio"]),
    ],
    dependencies: [
        // The folio command line only; the library depends on nothing but libxml2.
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // Test-only: property-based testing of graphs and round trips.
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .systemLibrary(
            name: "CLibEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"]), .brew(["libedit"])]
        ),
        .target(
            name: "Folio",
            dependencies: ["CLibXML2"]
        ),
        // The REPL's interpreter: commands in, text out; uses only Folio's public API.
        .target(
            name: "FolioREPL",
            dependencies: ["Folio"]
        ),
        // The terminal front end: arguments, line editing, history, completion, script mode.
        .executableTarget(
            name: "folio",
            dependencies: [
                "Folio", "FolioREPL", "CLibEdit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Builds SampleDocuments/ through the public API: `swift run SampleGenerator SampleDocuments`.
        .executableTarget(
            name: "SampleGenerator",
            dependencies: ["Folio"]
        ),
        // End-to-end: runs the built folio binary (found beside the test bundle).
        .testTarget(
            name: "FolioCLITests",
            dependencies: []
        ),
        .testTarget(
            name: "FolioREPLTests",
            dependencies: ["FolioREPL", "Folio"]
        ),
        .testTarget(
            name: "FolioTests",
            dependencies: [
                "Folio",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["Support/FuzzCrashers"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
