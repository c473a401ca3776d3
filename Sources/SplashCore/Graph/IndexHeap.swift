/// A min-heap of step indices: the ready steps of `StepGraph`'s topological order, taken lowest
/// index first in O(log n) each (a scan of the ready list per step made loading quadratic).
struct IndexHeap {
    private var elements: [Int] = []
    /// The comparisons made so far: the work, which tests hold to O(n log n).
    private(set) var comparisons = 0

    var isEmpty: Bool { elements.isEmpty }

    mutating func insert(_ element: Int) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            comparisons += 1
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the lowest index, nil when empty.
    mutating func popMin() -> Int? {
        guard let last = elements.popLast() else { return nil }
        guard !elements.isEmpty else { return last }
        let minimum = elements[0]
        elements[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < elements.count else { break }
            var smallest = left
            let right = left + 1
            if right < elements.count {
                comparisons += 1
                if elements[right] < elements[left] { smallest = right }
            }
            comparisons += 1
            guard elements[smallest] < elements[parent] else { break }
            elements.swapAt(smallest, parent)
            parent = smallest
        }
        return minimum
    }
}
