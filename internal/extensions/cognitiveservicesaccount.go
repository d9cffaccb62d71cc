package extensions

// Microsoft.CognitiveServices/accounts: the operator's
// cognitiveservices/account_extension.go exports key1 and key2 (listKeys).
// It calls listKeys only for operatorSpec.secrets entries, so there a
// secretExpressions reading secret.key1 alone finds no key; azk fetches it
// for either.
func init() {
	register("Microsoft.CognitiveServices/accounts", &keyExporter{reads: []keyRead{sameNames("listKeys", "key1", "key2")}})
}
