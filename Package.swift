// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Folio",
    products: [
        .library(name: "Folio", targets: ["Folio"]),
    ],
    dependencies: [
        // Test-only: property-based testing of graphs and round trips.
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .target(
            name: "Folio",
            dependencies: ["CLibXML2"]
        ),
        // Builds SampleDocuments/ through the public API: `swift run SampleGenerator SampleDocuments`.
        .executableTarget(
            name: "SampleGenerator",
            dependencies: ["Folio"]
        ),
        .testTarget(
            name: "FolioTests",
            dependencies: [
                "Folio",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
