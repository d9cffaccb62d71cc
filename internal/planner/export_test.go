package planner

// DeepCopy is deepCopy, for the tests outside the package.
var DeepCopy = deepCopy
