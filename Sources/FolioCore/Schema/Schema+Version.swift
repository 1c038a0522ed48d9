extension Schema {
    /// A schema's version, SwiftData's `Schema.Version`: three numbers compared
    /// in order, written `major.minor.patch`.
    ///
    /// A package records the version of the schema it was saved with
    /// (`<schema version="2.1.0">`, docs/FORMAT.md), so that a
    /// ``SchemaMigrationPlan`` knows where to start.
    public struct Version: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        /// The first number: a change old code cannot read.
        public let major: Int
        /// The second number.
        public let minor: Int
        /// The third number.
        public let patch: Int

        /// Creates a version, as `Schema.Version(1, 0, 0)`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// Whether `lhs` comes before `rhs`: by major, then minor, then patch.
        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// `major.minor.patch`, the form a package records.
        public var description: String { "\(major).\(minor).\(patch)" }

        /// Reads `major.minor.patch` as ``description`` writes it (three decimal
        /// `Int`s, a minus sign allowed), or `nil`.
        init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            func number(_ part: Substring) -> Int? {
                let digits = part.first == "-" ? part.dropFirst() : part
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
                return Int(part)
            }
            guard parts.count == 3, let major = number(parts[0]), let minor = number(parts[1]),
                let patch = number(parts[2])
            else { return nil }
            self.init(major, minor, patch)
        }
    }
}
