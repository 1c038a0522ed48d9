// Model code written for SwiftData uses Foundation (`Date`, `#Predicate`,
// `SortDescriptor`) with nothing but `import SwiftData`; the same code ports
// with nothing but `import Folio`.
@_exported import Foundation
@_exported import Observation
