package extensions

// Microsoft.Communication/communicationServices: the operator's
// communication/communication_service_extensions.go exports the access keys
// and connection strings (listKeys).
func init() {
	register("Microsoft.Communication/communicationServices", &keyExporter{reads: []keyRead{sameNames("listKeys", sharedAccessKeys...)}})
}
