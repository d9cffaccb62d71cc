package extensions

import "strings"

// Names that must be unique across Azure, and how each provider checks one.
// Derived from the public REST specifications (Azure/azure-rest-api-specs,
// specification/<service>/resource-manager/<namespace>): the provider-level
// checkNameAvailability operation of each namespace whose resource names are
// DNS labels shared by every customer. Each entry names its operation; the
// path form (tenant, subscription, location or resource group), the request
// body's type value and the answer's shape are those the operation's
// definition gives. The emulator answers these operations and azk asks them
// before a create (internal/preflight).

// NameScope is where a name check operation lives.
type NameScope string

const (
	// NameAtSubscription: POST /subscriptions/{s}/providers/{ns}/{op}.
	NameAtSubscription NameScope = "subscription"
	// NameAtLocation: POST /subscriptions/{s}/providers/{ns}/locations/{l}/{op}.
	NameAtLocation NameScope = "location"
	// NameAtResourceGroup: POST /subscriptions/{s}/resourceGroups/{rg}/providers/{ns}/{op}.
	NameAtResourceGroup NameScope = "resourceGroup"
	// NameAtTenant: the operation addresses the name itself at tenant
	// scope: HEAD /providers/{ns}/{op}/{name} answers 200 when it exists
	// (Cosmos DB's databaseAccountNames).
	NameAtTenant NameScope = "tenant"
)

// NameAnswer is the shape of an operation's answer.
type NameAnswer string

const (
	// AnswerNameAvailable: {"nameAvailable": bool, "reason", "message"}.
	AnswerNameAvailable NameAnswer = "nameAvailable"
	// AnswerAvailable: {"available": bool, "reason", "message"} (SQL, Synapse).
	AnswerAvailable NameAnswer = "available"
	// AnswerSubdomain: {"isSubdomainAvailable": bool, "reason"} (Cognitive Services).
	AnswerSubdomain NameAnswer = "isSubdomainAvailable"
	// AnswerIsAvailiable: {"isAvailiable": bool} (Notification Hubs; the
	// specification spells it so).
	AnswerIsAvailiable NameAnswer = "isAvailiable"
	// AnswerNameAvailability: {"nameAvailability": "Available"|"Unavailable",
	// "reason", "message"} (Front Door).
	AnswerNameAvailability NameAnswer = "nameAvailability"
	// AnswerEmpty: 200 with no body when available, an error otherwise (Redis).
	AnswerEmpty NameAnswer = "empty"
	// AnswerExists: HEAD, 200 when the name exists, 404 when it does not.
	AnswerExists NameAnswer = "exists"
)

// NameCheck is how one resource type's globally unique name is checked.
type NameCheck struct {
	// Type is the ARM resource type whose names are global.
	Type string
	// Operation is the last path segment of the check, e.g. "checkNameAvailability".
	Operation string
	Scope     NameScope
	// RequestType is the body's "type" value; "" sends none.
	RequestType string
	// NameField is the body's field holding the name: "name" unless the
	// operation says otherwise ("subdomainName").
	NameField string
	// FromBody, when set, is the body path whose value is the unique name
	// instead of the resource's own name (a Cognitive Services account's
	// custom subdomain).
	FromBody []string
	Answer   NameAnswer
	// InvalidReason and TakenReason are the reason values the answer gives
	// for a malformed name and a name in use.
	InvalidReason, TakenReason string
}

// Namespace is the provider namespace of the check.
func (c NameCheck) Namespace() string {
	ns, _, _ := strings.Cut(c.Type, "/")
	return ns
}

// nameChecks: one entry per operation definition (operationId in brackets).
var nameChecks = []NameCheck{
	// storage: StorageAccounts_CheckNameAvailability
	{Type: "Microsoft.Storage/storageAccounts", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.Storage/storageAccounts", Answer: AnswerNameAvailable, InvalidReason: "AccountNameInvalid", TakenReason: "AlreadyExists"},
	// keyvault: Vaults_CheckNameAvailability
	{Type: "Microsoft.KeyVault/vaults", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.KeyVault/vaults", Answer: AnswerNameAvailable, InvalidReason: "AccountNameInvalid", TakenReason: "AlreadyExists"},
	// keyvault: ManagedHsms_CheckMhsmNameAvailability
	{Type: "Microsoft.KeyVault/managedHSMs", Operation: "checkMhsmNameAvailability", Scope: NameAtSubscription, Answer: AnswerNameAvailable, InvalidReason: "AccountNameInvalid", TakenReason: "AlreadyExists"},
	// cosmos-db: DatabaseAccounts_CheckNameExists (HEAD /providers/Microsoft.DocumentDB/databaseAccountNames/{accountName})
	{Type: "Microsoft.DocumentDB/databaseAccounts", Operation: "databaseAccountNames", Scope: NameAtTenant, Answer: AnswerExists},
	// mongocluster: MongoClusters_CheckNameAvailability
	{Type: "Microsoft.DocumentDB/mongoClusters", Operation: "checkMongoClusterNameAvailability", Scope: NameAtLocation, RequestType: "Microsoft.DocumentDB/mongoClusters", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// web: CheckNameAvailability
	{Type: "Microsoft.Web/sites", Operation: "checknameavailability", Scope: NameAtSubscription, RequestType: "Microsoft.Web/sites", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// redis: Redis_CheckNameAvailability (200 with no body, else an error)
	{Type: "Microsoft.Cache/redis", Operation: "CheckNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.Cache/redis", Answer: AnswerEmpty},
	// servicebus: Namespaces_CheckNameAvailability
	{Type: "Microsoft.ServiceBus/namespaces", Operation: "CheckNameAvailability", Scope: NameAtSubscription, Answer: AnswerNameAvailable, InvalidReason: "InvalidName", TakenReason: "NameInUse"},
	// eventhub: Namespaces_CheckNameAvailability
	{Type: "Microsoft.EventHub/namespaces", Operation: "checkNameAvailability", Scope: NameAtSubscription, Answer: AnswerNameAvailable, InvalidReason: "InvalidName", TakenReason: "NameInUse"},
	// containerregistry: Registries_CheckNameAvailability
	{Type: "Microsoft.ContainerRegistry/registries", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.ContainerRegistry/registries", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// appconfiguration: CheckNameAvailability (also location-scoped as CheckNameAvailability_RegionalCheckNameAvailability)
	{Type: "Microsoft.AppConfiguration/configurationStores", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.AppConfiguration/configurationStores", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// search: Services_CheckNameAvailability (type "searchServices")
	{Type: "Microsoft.Search/searchServices", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "searchServices", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// signalr: SignalR_CheckNameAvailability
	{Type: "Microsoft.SignalRService/signalR", Operation: "checkNameAvailability", Scope: NameAtLocation, RequestType: "Microsoft.SignalRService/SignalR", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// webpubsub: WebPubSub_CheckNameAvailability
	{Type: "Microsoft.SignalRService/webPubSub", Operation: "checkNameAvailability", Scope: NameAtLocation, RequestType: "Microsoft.SignalRService/WebPubSub", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// apimanagement: ApiManagementService_CheckNameAvailability
	{Type: "Microsoft.ApiManagement/service", Operation: "checkNameAvailability", Scope: NameAtSubscription, Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// sql: Servers_CheckNameAvailability ({"available"})
	{Type: "Microsoft.Sql/servers", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.Sql/servers", Answer: AnswerAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// postgresql: CheckNameAvailability (flexible servers)
	{Type: "Microsoft.DBforPostgreSQL/flexibleServers", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.DBforPostgreSQL/flexibleServers", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// mysql: CheckNameAvailability_Execute (flexible servers, location-scoped)
	{Type: "Microsoft.DBforMySQL/flexibleServers", Operation: "checkNameAvailability", Scope: NameAtLocation, RequestType: "Microsoft.DBforMySQL/flexibleServers", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// mariadb: CheckNameAvailability_Execute
	{Type: "Microsoft.DBforMariaDB/servers", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.DBforMariaDB/servers", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// cdn: CheckNameAvailabilityWithSubscription (classic CDN endpoints)
	{Type: "Microsoft.Cdn/profiles/endpoints", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.Cdn/Profiles/Endpoints", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// cdn: CheckEndpointNameAvailability (Front Door Standard/Premium endpoints, resource-group scoped)
	{Type: "Microsoft.Cdn/profiles/afdEndpoints", Operation: "checkEndpointNameAvailability", Scope: NameAtResourceGroup, RequestType: "Microsoft.Cdn/Profiles/AfdEndpoints", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// frontdoor: CheckFrontDoorNameAvailabilityWithSubscription (classic Front Door)
	{Type: "Microsoft.Network/frontDoors", Operation: "checkFrontDoorNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.Network/frontDoors", Answer: AnswerNameAvailability, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// batch: Location_CheckNameAvailability
	{Type: "Microsoft.Batch/batchAccounts", Operation: "checkNameAvailability", Scope: NameAtLocation, RequestType: "Microsoft.Batch/batchAccounts", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// azure-kusto: Clusters_CheckNameAvailability
	{Type: "Microsoft.Kusto/clusters", Operation: "checkNameAvailability", Scope: NameAtLocation, RequestType: "Microsoft.Kusto/clusters", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// synapse: Operations_CheckNameAvailability ({"available"})
	{Type: "Microsoft.Synapse/workspaces", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.Synapse/workspaces", Answer: AnswerAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// communication: CommunicationServices_CheckNameAvailability
	{Type: "Microsoft.Communication/communicationServices", Operation: "checkNameAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.Communication/CommunicationServices", Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// iothub: IotHubResource_CheckNameAvailability
	{Type: "Microsoft.Devices/IotHubs", Operation: "checkNameAvailability", Scope: NameAtSubscription, Answer: AnswerNameAvailable, InvalidReason: "Invalid", TakenReason: "AlreadyExists"},
	// notificationhubs: Namespaces_CheckAvailability ({"isAvailiable"})
	{Type: "Microsoft.NotificationHubs/namespaces", Operation: "checkNamespaceAvailability", Scope: NameAtSubscription, Answer: AnswerIsAvailiable},
	// cognitiveservices: CheckDomainAvailability (the account's custom subdomain)
	{Type: "Microsoft.CognitiveServices/accounts", Operation: "checkDomainAvailability", Scope: NameAtSubscription, RequestType: "Microsoft.CognitiveServices/accounts", NameField: "subdomainName", FromBody: []string{"properties", "customSubDomainName"}, Answer: AnswerSubdomain},
}

// NameChecks lists every global-name check, in a stable order.
func NameChecks() []NameCheck { return append([]NameCheck(nil), nameChecks...) }

// NameCheckFor is the check of typ's global names, if its names are global.
func NameCheckFor(typ string) (NameCheck, bool) {
	for _, c := range nameChecks {
		if strings.EqualFold(c.Type, typ) {
			return c, true
		}
	}
	return NameCheck{}, false
}

// NameChecksAt lists the checks a request to namespace ns's operation op
// answers (several types may share one operation, e.g. SignalR and Web PubSub).
func NameChecksAt(ns, op string) []NameCheck {
	var out []NameCheck
	for _, c := range nameChecks {
		if strings.EqualFold(c.Namespace(), ns) && strings.EqualFold(c.Operation, op) {
			out = append(out, c)
		}
	}
	return out
}
