package planner_test

import "github.com/azkcli/azk/internal/planner/plantest"

// The emulator and the scenario the tests plan against (see plantest).
type testAzure = plantest.Azure

const testSub = plantest.Subscription

var startAzure, loadScenario = plantest.StartAzure, plantest.LoadScenario
