// argocd-lua-health evaluates an Argo CD custom health check the way Argo CD does, with the same Lua interpreter
// (github.com/yuin/gopher-lua) and the same environment (argo-cd util/lua/lua.go: no standard libraries but
// package, base and table; a one-second deadline; the object decoded into Lua tables; the returned table encoded
// with layeh.com/gopher-json; an unknown status becomes Unknown), after gitops-engine's own rules (an object that
// does not exist is Missing; one being deleted is Progressing, "Pending deletion").
//
// Input on stdin: {"script": "<lua>", "objects": [<object or null>, ...]}.
// Output on stdout: one JSON result per object: {"status": "...", "message": "..."} or {"error": "..."}.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
	luajson "layeh.com/gopher-json"
)

type input struct {
	Script  string                   `json:"script"`
	Objects []map[string]interface{} `json:"objects"`
}

type result struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

var validStatuses = map[string]bool{"Unknown": true, "Progressing": true, "Suspended": true, "Healthy": true, "Degraded": true, "Missing": true}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintf(os.Stderr, "argocd-lua-health: reading the input: %v\n", err)
		os.Exit(2)
	}
	results := make([]result, 0, len(in.Objects))
	for _, object := range in.Objects {
		results = append(results, health(in.Script, object))
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fmt.Fprintf(os.Stderr, "argocd-lua-health: writing the output: %v\n", err)
		os.Exit(2)
	}
}

func health(script string, object map[string]interface{}) result {
	if object == nil {
		return result{Status: "Missing"}
	}
	if metadata, ok := object["metadata"].(map[string]interface{}); ok && metadata["deletionTimestamp"] != nil {
		return result{Status: "Progressing", Message: "Pending deletion"}
	}
	state := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer state.Close()
	for _, library := range []struct {
		name string
		open lua.LGFunction
	}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
		if err := state.CallByParam(lua.P{Fn: state.NewFunction(library.open), NRet: 0, Protect: true}, lua.LString(library.name)); err != nil {
			return result{Error: err.Error()}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	state.SetContext(ctx)
	state.SetGlobal("obj", decodeValue(state, object))
	if err := state.DoString(script); err != nil {
		return result{Error: err.Error()}
	}
	returned := state.Get(-1)
	if returned.Type() != lua.LTTable {
		return result{Error: fmt.Sprintf("expect table output from Lua script, not %s", returned.Type().String())}
	}
	encoded, err := luajson.Encode(returned)
	if err != nil {
		return result{Error: err.Error()}
	}
	var status result
	if err := json.Unmarshal(encoded, &status); err != nil {
		return result{Error: err.Error()}
	}
	if !validStatuses[status.Status] {
		return result{Status: "Unknown", Message: "Lua returned an invalid health status"}
	}
	return status
}

// decodeValue mirrors argo-cd's util/lua decodeValue: JSON values to Lua values.
func decodeValue(state *lua.LState, value interface{}) lua.LValue {
	switch converted := value.(type) {
	case bool:
		return lua.LBool(converted)
	case float64:
		return lua.LNumber(converted)
	case string:
		return lua.LString(converted)
	case []interface{}:
		array := state.CreateTable(len(converted), 0)
		for _, item := range converted {
			array.Append(decodeValue(state, item))
		}
		return array
	case map[string]interface{}:
		table := state.CreateTable(0, len(converted))
		for key, item := range converted {
			table.RawSetH(lua.LString(key), decodeValue(state, item))
		}
		return table
	}
	return lua.LNil
}
