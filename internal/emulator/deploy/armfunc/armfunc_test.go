package armfunc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// call is one evaluation: a function, its arguments and either the result or a fragment of the
// error ARM would give.
type call struct {
	fn      string
	args    []any
	want    any
	wantErr string
}

// obj and arr keep the cases short.
type obj = map[string]any
type arr = []any

// Expected values marked "docs" are the outputs ARM's template function reference publishes for
// the same inputs (learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-*).
var calls = []call{
	// string
	{fn: "base64", args: arr{"one, two, three"}, want: "b25lLCB0d28sIHRocmVl"}, // docs
	{fn: "base64", args: arr{1}, wantErr: "expects its first parameter to be of type 'String'. The provided value is of type 'Integer'"},
	{fn: "base64ToString", args: arr{"b25lLCB0d28sIHRocmVl"}, want: "one, two, three"}, // docs
	{fn: "base64ToString", args: arr{"not base64!"}, wantErr: "valid base64"},
	{fn: "base64ToJson", args: arr{"eyJvbmUiOiAiYSIsICJ0d28iOiAiYiJ9"}, want: obj{"one": "a", "two": "b"}}, // docs
	{fn: "base64ToJson", args: arr{"bm90IGpzb24="}, wantErr: "valid JSON"},
	{fn: "concat", args: arr{"prefix", "-", "5yj4yjf5mbg72"}, want: "prefix-5yj4yjf5mbg72"},
	{fn: "concat", args: arr{arr{"1-1", "1-2", "1-3"}, arr{"2-1", "2-2", "2-3"}}, want: arr{"1-1", "1-2", "1-3", "2-1", "2-2", "2-3"}}, // docs
	{fn: "concat", args: arr{"a", 1, true, nil}, want: "a1True"},
	{fn: "concat", args: arr{"a", arr{"b"}}, wantErr: "all arrays or all strings"},
	{fn: "concat", args: arr{}, wantErr: "expects at least one parameter, but 0 were provided"},
	{fn: "contains", args: arr{"OneTwoThree", "e"}, want: true}, // docs
	{fn: "contains", args: arr{"OneTwoThree", "z"}, want: false},
	{fn: "contains", args: arr{"OneTwoThree", "one"}, want: false},              // strings compare case-sensitively
	{fn: "contains", args: arr{obj{"one": "a", "two": "b"}, "ONE"}, want: true}, // keys case-insensitively
	{fn: "contains", args: arr{obj{"one": "a"}, "three"}, want: false},
	{fn: "contains", args: arr{arr{"one", "two", "three"}, "three"}, want: true},
	{fn: "contains", args: arr{arr{1, arr{2}}, arr{2}}, want: true},
	{fn: "contains", args: arr{1, 1}, wantErr: "one of the following types 'Array, Object, String'"},
	{fn: "dataUri", args: arr{"Hello"}, want: "data:text/plain;charset=utf8;base64,SGVsbG8="}, // docs
	{fn: "dataUri", args: arr{obj{}}, wantErr: "to be of type 'String'"},
	{fn: "dataUriToString", args: arr{"data:;base64,SGVsbG8sIFdvcmxkIQ=="}, want: "Hello, World!"}, // docs
	{fn: "dataUriToString", args: arr{"data:text/plain,a%20b"}, want: "a b"},
	{fn: "dataUriToString", args: arr{"Hello"}, wantErr: "data URI"},
	{fn: "empty", args: arr{arr{}}, want: true}, // docs
	{fn: "empty", args: arr{obj{}}, want: true},
	{fn: "empty", args: arr{""}, want: true},
	{fn: "empty", args: arr{nil}, want: true},
	{fn: "empty", args: arr{"a"}, want: false},
	{fn: "empty", args: arr{5}, wantErr: "one of the following types 'Array, Object, String'"},
	{fn: "endsWith", args: arr{"abcdef", "ef"}, want: true}, // docs
	{fn: "endsWith", args: arr{"abcdef", "F"}, want: true},  // docs: case-insensitive
	{fn: "endsWith", args: arr{"abcdef", "e"}, want: false}, // docs
	{fn: "endsWith", args: arr{"abcdef"}, wantErr: "expects exactly 2 parameters, but 1 were provided"},
	{fn: "first", args: arr{arr{"one", "two", "three"}}, want: "one"}, // docs
	{fn: "first", args: arr{"One Two Three"}, want: "O"},              // docs
	{fn: "first", args: arr{arr{}}, want: nil},
	{fn: "first", args: arr{3}, wantErr: "one of the following types 'Array, String'"},
	{fn: "format", args: arr{"{0}, {1}. Formatted number: {2:N0}", "Hello", "User", 8175133}, want: "Hello, User. Formatted number: 8,175,133"}, // docs
	{fn: "format", args: arr{"{0:D3}-{1,4}|{1,-4}|{{x}}", 7, "ab"}, want: "007-  ab|ab  |{x}"},
	{fn: "format", args: arr{"{0:N2} {0:X} {0:x4} {1} {2:000.0}", 1234, true, 5}, want: "1,234.00 4D2 04d2 True 005.0"},
	{fn: "format", args: arr{"{0:#,##0}|{0:E}|{0:F1}|{0:P0}|{0:C}|{1:C0}", 1234567, -2}, want: "1,234,567|1.234567E+006|1234567.0|123,456,700 %|¤1,234,567.00|(¤2)"},
	{fn: "format", args: arr{"{0:X}|{1:D3}|{2}|{3}", -1, -7, nil, arr{1}}, want: "FFFFFFFFFFFFFFFF|-007||[1]"},
	{fn: "format", args: arr{"{0:Q}", 1}, wantErr: "valid numeric format string"},
	{fn: "format", args: arr{"{1}", "only one"}, wantErr: "format item {1}"},
	{fn: "format", args: arr{"{0"}, wantErr: "valid composite format string"},
	{fn: "guid", args: arr{"a", "b"}, want: GUID("a-b")},
	{fn: "guid", args: arr{"a", 1}, wantErr: "expects its second parameter to be of type 'String'"},
	{fn: "indexOf", args: arr{"test", "t"}, want: 0},    // docs
	{fn: "indexOf", args: arr{"abcdef", "CD"}, want: 2}, // docs: case-insensitive
	{fn: "indexOf", args: arr{"abcdef", "z"}, want: -1}, // docs
	{fn: "indexOf", args: arr{arr{"a", "b", "a"}, "a"}, want: 0},
	{fn: "indexOf", args: arr{arr{1, 2}, "2"}, want: -1},
	{fn: "indexOf", args: arr{"abc", 1}, wantErr: "expects its second parameter to be of type 'String'"},
	{fn: "join", args: arr{arr{"one", "two", "three"}, ","}, want: "one,two,three"},
	{fn: "join", args: arr{arr{"one", obj{}}, ","}, wantErr: "element 1 is of type 'Object'"},
	{fn: "json", args: arr{`{"a": "b", "n": [1, 2.5]}`}, want: obj{"a": "b", "n": arr{1, 2.5}}}, // docs shape
	{fn: "json", args: arr{"null"}, want: nil},
	{fn: "json", args: arr{"true"}, want: true},
	{fn: "json", args: arr{"{"}, wantErr: "valid JSON"},
	{fn: "last", args: arr{arr{"one", "two", "three"}}, want: "three"}, // docs
	{fn: "last", args: arr{"One Two Three"}, want: "e"},                // docs
	{fn: "last", args: arr{obj{}}, wantErr: "one of the following types 'Array, String'"},
	{fn: "lastIndexOf", args: arr{"test", "t"}, want: 3},    // docs
	{fn: "lastIndexOf", args: arr{"abcdef", "AB"}, want: 0}, // docs
	{fn: "lastIndexOf", args: arr{arr{"a", "b", "a"}, "a"}, want: 2},
	{fn: "lastIndexOf", args: arr{1, 1}, wantErr: "one of the following types 'Array, String'"},
	{fn: "length", args: arr{arr{"one", "two", "three"}}, want: 3}, // docs
	{fn: "length", args: arr{"One Two Three"}, want: 13},           // docs
	{fn: "length", args: arr{obj{"a": 1, "b": 2, "c": 3, "d": 4}}, want: 4},
	{fn: "length", args: arr{true}, wantErr: "one of the following types 'Array, Object, String'"},
	{fn: "padLeft", args: arr{"123", 10, "0"}, want: "0000000123"}, // docs
	{fn: "padLeft", args: arr{123, 5}, want: "  123"},
	{fn: "padLeft", args: arr{"123456", 3, "0"}, want: "123456"},
	{fn: "padLeft", args: arr{"1", 3, "00"}, wantErr: "single character"},
	{fn: "replace", args: arr{"123-123-1234", "-", ""}, want: "1231231234"},          // docs
	{fn: "replace", args: arr{"123-123-1234", "1234", "xxxx"}, want: "123-123-xxxx"}, // docs
	{fn: "replace", args: arr{"a", "b"}, wantErr: "expects exactly 3 parameters"},
	{fn: "skip", args: arr{arr{"one", "two", "three"}, 2}, want: arr{"three"}}, // docs
	{fn: "skip", args: arr{"one two three", 4}, want: "two three"},             // docs
	{fn: "skip", args: arr{"abc", -1}, want: "abc"},
	{fn: "skip", args: arr{arr{"a"}, 5}, want: arr{}},
	{fn: "skip", args: arr{"abc", "1"}, wantErr: "expects its second parameter to be of type 'Integer'"},
	{fn: "split", args: arr{"one,two,three", ","}, want: arr{"one", "two", "three"}},           // docs
	{fn: "split", args: arr{"one;two,three", arr{",", ";"}}, want: arr{"one", "two", "three"}}, // docs
	{fn: "split", args: arr{"xaby", arr{"b", "ab"}}, want: arr{"x", "y"}},                      // the earliest match wins, as in .NET
	{fn: "split", args: arr{"a,,b", ","}, want: arr{"a", "", "b"}},
	{fn: "split", args: arr{"a", 1}, wantErr: "one of the following types 'String, Array'"},
	{fn: "startsWith", args: arr{"abcdef", "ab"}, want: true}, // docs
	{fn: "startsWith", args: arr{"abcdef", "A"}, want: true},  // docs
	{fn: "startsWith", args: arr{"abcdef", "e"}, want: false}, // docs
	{fn: "startsWith", args: arr{"abcdef", 1}, wantErr: "expects its second parameter to be of type 'String'"},
	{fn: "string", args: arr{obj{"valueA": 10, "valueB": "Example Text"}}, want: `{"valueA":10,"valueB":"Example Text"}`}, // docs
	{fn: "string", args: arr{arr{"a", "b", "c"}}, want: `["a","b","c"]`},                                                  // docs
	{fn: "string", args: arr{5}, want: "5"},                                                                               // docs
	{fn: "string", args: arr{true}, want: "True"},
	{fn: "string", args: arr{"<&>"}, want: "<&>"},
	{fn: "string", args: arr{}, wantErr: "expects exactly one parameter"},
	{fn: "substring", args: arr{"one two three", 4, 3}, want: "two"}, // docs
	{fn: "substring", args: arr{"one two three", 4}, want: "two three"},
	{fn: "substring", args: arr{"1234567890", 0, 11}, wantErr: "The index and length parameters must refer to a location within the string. The index parameter: '0', the length parameter: '11', the length of the string parameter: '10'."}, // docs
	{fn: "take", args: arr{arr{"one", "two", "three"}, 2}, want: arr{"one", "two"}}, // docs
	{fn: "take", args: arr{"one two three", 2}, want: "on"},                         // docs
	{fn: "take", args: arr{"abc", 0}, want: ""},
	{fn: "take", args: arr{arr{"a"}, 9}, want: arr{"a"}},
	{fn: "take", args: arr{obj{}, 1}, wantErr: "one of the following types 'Array, String'"},
	{fn: "toLower", args: arr{"One Two Three"}, want: "one two three"}, // docs
	{fn: "toLower", args: arr{"a", "b"}, wantErr: "expects exactly one parameter, but 2 were provided"},
	{fn: "toUpper", args: arr{"One Two Three"}, want: "ONE TWO THREE"}, // docs
	{fn: "toUpper", args: arr{nil}, wantErr: "of type 'Null'"},
	{fn: "trim", args: arr{"    one two three   "}, want: "one two three"}, // docs
	{fn: "trim", args: arr{arr{}}, wantErr: "to be of type 'String'"},
	{fn: "uniqueString", args: arr{"test"}, want: UniqueString("test")},
	{fn: "uniqueString", args: arr{}, wantErr: "expects at least one parameter"},
	{fn: "uri", args: arr{"http://contoso.com/resources/", "nested/azuredeploy.json"}, want: "http://contoso.com/resources/nested/azuredeploy.json"},           // docs
	{fn: "uri", args: arr{"http://contoso.org/firstpath", "myscript.sh"}, want: "http://contoso.org/myscript.sh"},                                              // docs
	{fn: "uri", args: arr{"http://contoso.org/firstpath/azuredeploy.json/", "myscript.sh"}, want: "http://contoso.org/firstpath/azuredeploy.json/myscript.sh"}, // docs
	{fn: "uri", args: arr{"relative/path", "x"}, wantErr: "absolute URI"},
	{fn: "uriComponent", args: arr{"http://contoso.com/resources/nested/azuredeploy.json"}, want: "http%3A%2F%2Fcontoso.com%2Fresources%2Fnested%2Fazuredeploy.json"}, // docs
	{fn: "uriComponent", args: arr{"a b+c~"}, want: "a%20b%2Bc~"},
	{fn: "uriComponent", args: arr{5}, wantErr: "to be of type 'String'"},
	{fn: "uriComponentToString", args: arr{"http%3A%2F%2Fcontoso.com%2Fresources%2Fnested%2Fazuredeploy.json"}, want: "http://contoso.com/resources/nested/azuredeploy.json"}, // docs
	{fn: "uriComponentToString", args: arr{"100%+a"}, want: "100%+a"},
	{fn: "uriComponentToString", args: arr{}, wantErr: "expects exactly one parameter, but 0 were provided"},

	// array
	{fn: "array", args: arr{1}, want: arr{1}}, // docs
	{fn: "array", args: arr{"efgh"}, want: arr{"efgh"}},
	{fn: "array", args: arr{obj{"a": "b"}}, want: arr{obj{"a": "b"}}},
	{fn: "array", args: arr{arr{1}}, want: arr{1}},
	{fn: "array", args: arr{"a", "b"}, wantErr: "expects exactly one parameter, but 2 were provided"},
	{fn: "createArray", args: arr{1, 2, 3}, want: arr{1, 2, 3}},
	{fn: "createArray", args: arr{}, want: arr{}},
	{fn: "indexFromEnd", args: arr{arr{"a", "b", "c"}, 1}, want: "c"},
	{fn: "indexFromEnd", args: arr{arr{"a", "b", "c"}, 4}, wantErr: "between 1 and the length of the array (3)"},
	{fn: "tryIndexFromEnd", args: arr{arr{"a", "b", "c"}, 3}, want: "a"},
	{fn: "tryIndexFromEnd", args: arr{arr{"a", "b", "c"}, 4}, want: nil},
	{fn: "tryIndexFromEnd", args: arr{"abc", 1}, wantErr: "expects its first parameter to be of type 'Array'"},
	{fn: "intersection", args: arr{obj{"one": "a", "two": "b", "three": "c"}, obj{"one": "a", "two": "z", "three": "c"}}, want: obj{"one": "a", "three": "c"}}, // docs
	{fn: "intersection", args: arr{arr{"one", "two", "three"}, arr{"three", "four", "two"}}, want: arr{"two", "three"}},                                        // docs
	{fn: "intersection", args: arr{arr{"one"}, obj{}}, wantErr: "second parameter to be of type 'Array'"},
	{fn: "max", args: arr{arr{0, 3, 2, 5, 4}}, want: 5}, // docs
	{fn: "max", args: arr{0, 3, 2, 5, 4}, want: 5},      // docs
	{fn: "max", args: arr{arr{6, 4}, 8}, want: 8},
	{fn: "max", args: arr{"one"}, wantErr: "one of the following types 'Integer, Array'"},
	{fn: "min", args: arr{arr{0, 3, 2, 5, 4}}, want: 0}, // docs
	{fn: "min", args: arr{arr{}}, wantErr: "at least one integer"},
	{fn: "range", args: arr{1, 3}, want: arr{1, 2, 3}}, // docs
	{fn: "range", args: arr{5, 0}, want: arr{}},
	{fn: "range", args: arr{1, 10001}, wantErr: "between 0 and 10000"},
	{fn: "range", args: arr{2147483640, 8}, wantErr: "at most 2147483647"},
	{fn: "range", args: arr{2147483640, 7}, want: arr{2147483640, 2147483641, 2147483642, 2147483643, 2147483644, 2147483645, 2147483646}},
	{fn: "tryGet", args: arr{obj{"a": obj{"b": 1}}, "A", "b"}, want: 1},
	{fn: "tryGet", args: arr{obj{"a": 1}, "missing"}, want: nil},
	{fn: "tryGet", args: arr{arr{"x", "y"}, 1}, want: "y"},
	{fn: "tryGet", args: arr{arr{"x"}, 5}, want: nil},
	{fn: "tryGet", args: arr{"text", 0}, wantErr: "expects to read an object or an array"},
	{fn: "union", args: arr{arr{"one", "two", "three"}, arr{"three", "four"}}, want: arr{"one", "two", "three", "four"}}, // docs
	{fn: "union", args: arr{obj{"one": "a", "two": "b", "three": "c1"}, obj{"three": "c2", "four": "d", "five": "e"}}, want: obj{"one": "a", "two": "b", "three": "c2", "four": "d", "five": "e"}}, // docs
	{fn: "union", args: arr{ // docs: nested objects merge, nested arrays are replaced
		obj{"property": obj{"one": "a", "two": "b", "three": "c1"}, "nestedArray": arr{1, 2}},
		obj{"property": obj{"three": "c2", "four": "d", "five": "e"}, "nestedArray": arr{3, 4}}},
		want: obj{"property": obj{"one": "a", "two": "b", "three": "c2", "four": "d", "five": "e"}, "nestedArray": arr{3, 4}}},
	{fn: "union", args: arr{arr{arr{"one", "two"}, arr{"three"}}, arr{arr{"three"}, arr{"four", "two"}}}, want: arr{arr{"one", "two"}, arr{"three"}, arr{"four", "two"}}}, // docs
	{fn: "union", args: arr{obj{}, arr{}}, wantErr: "second parameter to be of type 'Object'"},

	// object
	{fn: "createObject", args: arr{"intProp", 1, "stringProp", "abc", "boolProp", true, "arrayProp", arr{"a", "b", "c"}, "objectProp", obj{"key1": "value1"}},
		want: obj{"intProp": 1, "stringProp": "abc", "boolProp": true, "arrayProp": arr{"a", "b", "c"}, "objectProp": obj{"key1": "value1"}}}, // docs
	{fn: "createObject", args: arr{"a"}, wantErr: "even number of parameters"},
	{fn: "items", args: arr{obj{"item002": obj{"enabled": false}, "item001": obj{"enabled": true}}},
		want: arr{obj{"key": "item001", "value": obj{"enabled": true}}, obj{"key": "item002", "value": obj{"enabled": false}}}}, // docs: sorted by key
	{fn: "items", args: arr{arr{}}, wantErr: "expects its first parameter to be of type 'Object'"},
	{fn: "null", args: arr{}, want: nil},
	{fn: "null", args: arr{1}, wantErr: "expects exactly 0 parameters"},
	{fn: "objectKeys", args: arr{obj{"b": 1, "a": 2}}, want: arr{"a", "b"}},
	{fn: "objectKeys", args: arr{"a"}, wantErr: "to be of type 'Object'"},
	{fn: "shallowMerge", args: arr{arr{obj{"one": "a", "nested": obj{"x": 1}}, obj{"two": "b", "nested": obj{"y": 2}}}},
		want: obj{"one": "a", "two": "b", "nested": obj{"y": 2}}},
	{fn: "shallowMerge", args: arr{arr{obj{}, 1}}, wantErr: "element 1 is of type 'Integer'"},

	// logical
	{fn: "and", args: arr{true, false}, want: false}, // docs
	{fn: "and", args: arr{true, true, true}, want: true},
	{fn: "and", args: arr{true}, wantErr: "expects at least 2 parameters"},
	{fn: "or", args: arr{true, false}, want: true}, // docs
	{fn: "or", args: arr{false, "true"}, wantErr: "expects its second parameter to be of type 'Boolean'"},
	{fn: "not", args: arr{true}, want: false}, // docs
	{fn: "not", args: arr{0}, wantErr: "to be of type 'Boolean'"},
	{fn: "bool", args: arr{"true"}, want: true}, // docs
	{fn: "bool", args: arr{"FALSE"}, want: false},
	{fn: "bool", args: arr{0}, want: false}, // docs
	{fn: "bool", args: arr{1}, want: true},  // docs
	{fn: "bool", args: arr{"yes"}, wantErr: "'true' or 'false'"},
	{fn: "true", args: arr{}, want: true},
	{fn: "false", args: arr{}, want: false},
	{fn: "false", args: arr{1}, wantErr: "expects exactly 0 parameters"},
	{fn: "if", args: arr{true, "a", "b"}, want: "a"},
	{fn: "if", args: arr{false, "a", obj{"b": 1}}, want: obj{"b": 1}},
	{fn: "if", args: arr{"true", "a", "b"}, wantErr: "to be of type 'Boolean'"},

	// numeric
	{fn: "add", args: arr{5, 3}, want: 8}, // docs
	{fn: "add", args: arr{int64(1) << 62, int64(1) << 62}, wantErr: "overflowed"},
	{fn: "sub", args: arr{7, 3}, want: 4}, // docs
	{fn: "sub", args: arr{int64(-1) << 63, 1}, wantErr: "overflowed"},
	{fn: "mul", args: arr{5, 3}, want: 15}, // docs
	{fn: "mul", args: arr{int64(1) << 32, int64(1) << 32}, wantErr: "overflowed"},
	{fn: "div", args: arr{8, 3}, want: 2}, // docs
	{fn: "div", args: arr{-7, 2}, want: -3},
	{fn: "div", args: arr{1, 0}, wantErr: "non-zero divisor"},
	{fn: "mod", args: arr{7, 3}, want: 1}, // docs
	{fn: "mod", args: arr{-7, 3}, want: -1},
	{fn: "mod", args: arr{7, "3"}, wantErr: "expects its second parameter to be of type 'Integer'"},
	{fn: "int", args: arr{"4"}, want: 4}, // docs
	{fn: "int", args: arr{"four"}, wantErr: "holding an integer"},
	// ARM's own words, as quoted in Azure/azure-quickstart-templates issue 2019.
	{fn: "int", args: arr{true}, wantErr: "The template language function 'int' expects its first parameter to be one of the following types 'Integer, String'. The provided value is of type 'Boolean'."},
	{fn: "float", args: arr{"1.5"}, want: 1.5},
	{fn: "float", args: arr{3}, want: float64(3)},
	{fn: "float", args: arr{arr{}}, wantErr: "one of the following types 'Integer, Float, String'"},

	// comparison
	{fn: "coalesce", args: arr{nil, nil, "default"}, want: "default"}, // docs
	{fn: "coalesce", args: arr{nil, obj{"first": "default"}}, want: obj{"first": "default"}},
	{fn: "coalesce", args: arr{nil, nil}, want: nil},
	{fn: "coalesce", args: arr{}, wantErr: "at least one parameter"},
	{fn: "equals", args: arr{arr{"a", "b"}, arr{"a", "b"}}, want: true}, // docs
	{fn: "equals", args: arr{obj{"a": "b"}, obj{"A": "b"}}, want: true},
	{fn: "equals", args: arr{"a", "A"}, want: false},
	{fn: "equals", args: arr{1, "1"}, want: false},
	{fn: "equals", args: arr{1}, wantErr: "expects exactly 2 parameters"},
	{fn: "greater", args: arr{1, 2}, want: false},    // docs
	{fn: "greater", args: arr{"A", "a"}, want: true}, // docs
	{fn: "greater", args: arr{"b", "A"}, want: true},
	{fn: "greater", args: arr{1, "a"}, wantErr: "second parameter to be one of the following types 'Integer, Float'. The provided value is of type 'String'"},
	{fn: "greaterOrEquals", args: arr{1, 2}, want: false},    // docs
	{fn: "greaterOrEquals", args: arr{"A", "a"}, want: true}, // docs
	{fn: "greaterOrEquals", args: arr{"a", 1}, wantErr: "second parameter to be of type 'String'. The provided value is of type 'Integer'"},
	{fn: "less", args: arr{1, 2}, want: true},      // docs
	{fn: "less", args: arr{"A", "a"}, want: false}, // docs
	{fn: "less", args: arr{nil, 1}, wantErr: "one of the following types 'Integer, String'"},
	{fn: "lessOrEquals", args: arr{1, 2}, want: true},      // docs
	{fn: "lessOrEquals", args: arr{"A", "a"}, want: false}, // docs
	{fn: "lessOrEquals", args: arr{arr{}, arr{}}, wantErr: "one of the following types 'Integer, String'"},

	// date
	{fn: "dateTimeAdd", args: arr{"2023-01-01 00:00:00Z", "P1Y"}, want: "2024-01-01T00:00:00Z"}, // docs
	{fn: "dateTimeAdd", args: arr{"2024-01-01 00:00:00Z", "P1Y"}, want: "2024-12-31T00:00:00Z"}, // docs
	{fn: "dateTimeAdd", args: arr{"2023-02-01 00:00:00Z", "P1M"}, want: "2023-03-03T00:00:00Z"}, // docs
	{fn: "dateTimeAdd", args: arr{"2024-02-01 00:00:00Z", "P1M"}, want: "2024-03-02T00:00:00Z"}, // docs
	{fn: "dateTimeAdd", args: arr{"2020-04-07T14:53:14Z", "-P9D"}, want: "2020-03-29T14:53:14Z"},
	{fn: "dateTimeAdd", args: arr{"20200407T145314Z", "PT1H30M", "yyyy-MM-dd HH:mm"}, want: "2020-04-07 16:23"},
	{fn: "dateTimeAdd", args: arr{"2020-04-07T14:53:14Z", "1 day"}, wantErr: "ISO 8601 duration"},
	{fn: "dateTimeAdd", args: arr{"yesterday", "P1D"}, wantErr: "ISO 8601 date and time"},
	{fn: "dateTimeFromEpoch", args: arr{1683040573}, want: "2023-05-02T15:16:13Z"}, // docs
	{fn: "dateTimeFromEpoch", args: arr{"1683040573"}, wantErr: "to be of type 'Integer'. The provided value is of type 'String'"},
	{fn: "dateTimeToEpoch", args: arr{"2023-05-02T15:16:13Z"}, want: 1683040573}, // docs
	{fn: "dateTimeToEpoch", args: arr{"not a date"}, wantErr: "ISO 8601 date and time"},

	// cidr
	{fn: "parseCidr", args: arr{"10.144.0.0/20"}, want: obj{"network": "10.144.0.0", "netmask": "255.255.240.0", "broadcast": "10.144.15.255", "firstUsable": "10.144.0.1", "lastUsable": "10.144.15.254", "cidr": 20}},                  // docs
	{fn: "parseCidr", args: arr{"fdad:3236:5555::/48"}, want: obj{"network": "fdad:3236:5555::", "netmask": "ffff:ffff:ffff::", "firstUsable": "fdad:3236:5555::", "lastUsable": "fdad:3236:5555:ffff:ffff:ffff:ffff:ffff", "cidr": 48}}, // docs
	{fn: "parseCidr", args: arr{"10.0.0.0"}, wantErr: "CIDR notation"},
	{fn: "cidrSubnet", args: arr{"10.144.0.0/20", 24, 4}, want: "10.144.4.0/24"},                  // docs
	{fn: "cidrSubnet", args: arr{"fdad:3236:5555::/48", 52, 3}, want: "fdad:3236:5555:3000::/52"}, // docs
	{fn: "cidrSubnet", args: arr{"10.144.0.0/20", 16, 0}, wantErr: "between 20 and 32"},
	{fn: "cidrSubnet", args: arr{"10.144.0.0/20", 24, 16}, wantErr: "between 0 and 15"},
	{fn: "cidrHost", args: arr{"10.144.3.0/24", 0}, want: "10.144.3.1"},                        // docs
	{fn: "cidrHost", args: arr{"10.144.3.0/24", 4}, want: "10.144.3.5"},                        // docs
	{fn: "cidrHost", args: arr{"fdad:3236:5555:3000::/52", 4}, want: "fdad:3236:5555:3000::5"}, // docs
	{fn: "cidrHost", args: arr{"10.144.3.0/24", 254}, wantErr: "between 0 and 253"},
}

func TestFunctions(t *testing.T) {
	for _, c := range calls {
		f, ok := Lookup(c.fn)
		if !ok {
			t.Errorf("%s: no function", c.fn)
			continue
		}
		got, err := f(c.args)
		label := c.fn + compactJSON(c.args)
		if c.wantErr != "" {
			if err == nil {
				t.Errorf("%s = %s, want an error with %q", label, compactJSON(got), c.wantErr)
			} else if !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error %q lacks %q", label, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", label, err)
			continue
		}
		// float's results stay float64 even where integral; every other number is an int64.
		want, err := c.want, error(nil)
		if _, isFloat := want.(float64); !isFloat {
			if want, err = normalize(c.want); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %s (%T), want %s (%T)", label, compactJSON(got), got, compactJSON(want), want)
		}
	}
}

// Every function the reference lists as pure is served, each is evaluated above at least once
// with a result and once refused, and Lookup serves nothing the reference does not list.
func TestReferenceIsServed(t *testing.T) {
	seen := map[string]bool{}
	evaluated, refused := map[string]bool{}, map[string]bool{}
	for _, c := range calls {
		key := strings.ToLower(c.fn)
		if c.wantErr == "" {
			evaluated[key] = true
		} else {
			refused[key] = true
		}
	}
	for _, e := range Reference {
		key := strings.ToLower(e.Name)
		if seen[key] {
			t.Errorf("%s is listed twice", e.Name)
		}
		seen[key] = true
		_, served := Lookup(e.Name)
		switch {
		case e.Pure && !served:
			t.Errorf("%s is pure but Lookup lacks it", e.Name)
		case !e.Pure && served:
			t.Errorf("%s is the runner's but Lookup serves it", e.Name)
		case e.Pure && !evaluated[key]:
			t.Errorf("%s has no evaluated case", e.Name)
		case e.Pure && !refused[key] && !nullary[key]:
			t.Errorf("%s has no refused case", e.Name)
		}
	}
	for key, entry := range library {
		if !seen[key] {
			t.Errorf("Lookup serves %s, which the reference does not list", entry.name)
		}
	}
}

// nullary functions take no arguments; their only refusal is an argument, tested for some.
var nullary = map[string]bool{"true": true, "createarray": true}

func TestLookupIsCaseInsensitiveAndNormalizesNumbers(t *testing.T) {
	f, ok := Lookup("TOLOWER")
	if !ok {
		t.Fatal("toLower not found under another case")
	}
	if got, _ := f([]any{"AbC"}); got != "abc" {
		t.Errorf("TOLOWER(AbC) = %v", got)
	}
	add, _ := Lookup("add")
	for _, args := range [][]any{{1, 2}, {float64(1), int64(2)}, {json.Number("1"), 2.0}} {
		got, err := add(args)
		if err != nil || got != int64(3) {
			t.Errorf("add(%#v) = %#v, %v; want int64 3", args, got, err)
		}
	}
	if _, err := add([]any{struct{}{}, 1}); err == nil {
		t.Error("add accepted a Go struct")
	}
	if _, ok := Lookup("parameters"); ok {
		t.Error("Lookup serves parameters, a context function the runner owns")
	}
}

func TestFormatDateTime(t *testing.T) {
	at, err := parseDateTime("test", "2020-04-07T14:53:14.5Z")
	if err != nil {
		t.Fatal(err)
	}
	for format, want := range map[string]string{
		"yyyyMMddTHHmmssZ": "20200407T145314Z", // utcNow's default format
		"u":                "2020-04-07 14:53:14Z",
		"o":                "2020-04-07T14:53:14.5000000Z",
		"d":                "04/07/2020",
		"M/d/yyyy h:mm tt": "4/7/2020 2:53 PM",
		"ddd, dd MMM yy":   "Tue, 07 Apr 20",
		"'at' HH\\:mm":     "at 14:53",
	} {
		got, err := FormatDateTime(at, format)
		if err != nil || got != want {
			t.Errorf("FormatDateTime(%q) = %q, %v; want %q", format, got, err, want)
		}
	}
	if _, err := FormatDateTime(at, "q"); err == nil {
		t.Error("the standard format 'q' does not exist but was accepted")
	}
}
