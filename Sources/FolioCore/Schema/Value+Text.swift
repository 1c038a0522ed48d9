extension Value {
    /// Parses a value's text as a document package writes it (docs/FORMAT.md):
    /// `12.5`, `2024-03-06T05:06:07Z` (or `2024-03-06`), `true`, base64 data,
    /// JSON for collections and composite values, `type:text` for any-values.
    ///
    /// - Returns: `nil` when the text is not a value of that type.
    public init?(text: String, as type: ValueType) {
        guard let value = ValueText.decode(text, as: type) else { return nil }
        self = value
    }

    /// The value's text as a document package writes it; `nil` for `.null`.
    public func text(as type: ValueType) -> String? {
        self == .null ? nil : ValueText.encode(self, as: type)
    }
}
