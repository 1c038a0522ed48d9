import PropertyBased
import Testing

// `checkProperty`: PropertyBased's `propertyCheck`, with a thrown error
// recorded as a failure of the case that threw.
//
// `propertyCheck` runs each case under `try?`: a case that throws ends
// silently, counted neither as a failure nor as a pass, so a property whose
// setup throws for some inputs skips them unseen (a random-graph plan once
// skipped up to 250 cases a test that way). Recorded as an issue, the error
// fails the test and prints the seed that reproduces it, like any `#expect`.

/// Runs `body` on `count` generated inputs; a thrown error fails the case.
public func checkProperty<InputValue, ResultValue>(
    count: Int = 100,
    input: Generator<ResultValue, some Sequence<InputValue>>,
    perform body: (ResultValue) async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    await propertyCheck(count: count, input: input, perform: { value in
        do { try await body(value) } catch { Issue.record(error, sourceLocation: sourceLocation) }
    }, isolation: isolation, sourceLocation: sourceLocation)
}

/// ``checkProperty(count:input:perform:isolation:sourceLocation:)`` with two inputs.
public func checkProperty<InA, InB, OutA, OutB>(
    count: Int = 100,
    input g0: Generator<OutA, some Sequence<InA>>,
    _ g1: Generator<OutB, some Sequence<InB>>,
    perform body: (OutA, OutB) async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    await checkProperty(count: count, input: zip(g0, g1), perform: { try await body($0.0, $0.1) },
                        isolation: isolation, sourceLocation: sourceLocation)
}

/// ``checkProperty(count:input:perform:isolation:sourceLocation:)`` with three inputs.
public func checkProperty<InA, InB, InC, OutA, OutB, OutC>(
    count: Int = 100,
    input g0: Generator<OutA, some Sequence<InA>>,
    _ g1: Generator<OutB, some Sequence<InB>>,
    _ g2: Generator<OutC, some Sequence<InC>>,
    perform body: (OutA, OutB, OutC) async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    await checkProperty(count: count, input: zip(g0, g1, g2), perform: { try await body($0.0, $0.1, $0.2) },
                        isolation: isolation, sourceLocation: sourceLocation)
}

/// ``checkProperty(count:input:perform:isolation:sourceLocation:)`` with four inputs.
public func checkProperty<InA, InB, InC, InD, OutA, OutB, OutC, OutD>(
    count: Int = 100,
    input g0: Generator<OutA, some Sequence<InA>>,
    _ g1: Generator<OutB, some Sequence<InB>>,
    _ g2: Generator<OutC, some Sequence<InC>>,
    _ g3: Generator<OutD, some Sequence<InD>>,
    perform body: (OutA, OutB, OutC, OutD) async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    await checkProperty(count: count, input: zip(g0, g1, g2, g3), perform: { try await body($0.0, $0.1, $0.2, $0.3) },
                        isolation: isolation, sourceLocation: sourceLocation)
}
