package views

import "github.com/azkcli/azk/internal/planner/plantest"

// The emulator and the scenario the tests plan against (see plantest).
type testAzure = plantest.Azure

const testSub, rgAdopt, mysqlPassword = plantest.Subscription, plantest.RGAdopt, plantest.MySQLPassword

var startAzure, loadScenario, makePlan, envWith = plantest.StartAzure, plantest.LoadScenario, plantest.MakePlan, plantest.EnvWith
