// swift-tools-version: 6.1
import PackageDescription

// A libFuzzer target for Folio's package loader, kept in its own package so the
// library itself is built without sanitizers. The target defines no `main`:
// libFuzzer's runtime provides it. Build and run from this folder:
//   ./run.sh 600        (builds, seeds the corpus, fuzzes for 600 seconds)
// or by hand (run.sh explains the flags):
//   swift build -c release --sanitize=fuzzer --sanitize=address \
//       -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing
let package = Package(
    name: "FolioFuzz",
    dependencies: [
        .package(name: "Folio", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "FolioFuzz",
            dependencies: [
                .product(name: "Folio", package: "Folio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
