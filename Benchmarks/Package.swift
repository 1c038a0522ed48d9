// swift-tools-version: 6.1
import PackageDescription

// Benchmarks for Folio, kept in their own package so the library itself
// depends on nothing but libxml2. Run from this folder:
//   swift run -c release FolioBenchmarks 100000 1000000
let package = Package(
    name: "FolioBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Folio", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "FolioBenchmarks",
            dependencies: [
                .product(name: "Folio", package: "Folio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
