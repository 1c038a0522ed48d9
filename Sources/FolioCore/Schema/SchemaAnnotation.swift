/// Something a layer above keeps with a schema — the typed layer's model
/// classes, by entity — without the schema knowing what it is.
///
/// The schema is the bottom layer and names nothing above it; a schema made
/// from classes still has to carry them to the container made from it, so
/// it carries them opaquely. Never part of a schema's equality.
protocol SchemaAnnotation: Sendable {}
