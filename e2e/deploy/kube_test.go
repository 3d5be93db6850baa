package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// kubeKinds are the object types the manifests may hold, by apiVersion and
// kind.
var kubeKinds = map[string]func() any{
	"v1 PersistentVolumeClaim":           func() any { return &corev1.PersistentVolumeClaim{} },
	"v1 ConfigMap":                       func() any { return &corev1.ConfigMap{} },
	"v1 Service":                         func() any { return &corev1.Service{} },
	"apps/v1 Deployment":                 func() any { return &appsv1.Deployment{} },
	"batch/v1 Job":                       func() any { return &batchv1.Job{} },
	"networking.k8s.io/v1 NetworkPolicy": func() any { return &networkingv1.NetworkPolicy{} },
}

// decodeManifests decodes every document of a multi-document YAML file
// strictly into its k8s.io/api type: a duplicated key, an unknown field or
// a value of the wrong type is an error, as `kubectl apply
// --validate=strict` would say.
func decodeManifests(data []byte) ([]any, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []any
	for n := 1; ; n++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %v", n, err)
		}
		js, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %v", n, err)
		}
		if string(bytes.TrimSpace(js)) == "null" { // comments only
			continue
		}
		var tm metav1.TypeMeta
		if err := json.Unmarshal(js, &tm); err != nil {
			return nil, fmt.Errorf("document %d: %v", n, err)
		}
		kind, ok := kubeKinds[tm.APIVersion+" "+tm.Kind]
		if !ok {
			return nil, fmt.Errorf("document %d: %s %s is not a kind these tests know", n, tm.APIVersion, tm.Kind)
		}
		obj := kind()
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.DisallowUnknownFields()
		if err := dec.Decode(obj); err != nil {
			return nil, fmt.Errorf("document %d (%s): %v", n, tm.Kind, err)
		}
		out = append(out, obj)
	}
}

// loadManifests decodes a manifest file of the repository.
func loadManifests(t *testing.T, rel string) []any {
	t.Helper()
	objs, err := decodeManifests(readRepoFile(t, rel))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return objs
}

// only is the one object of type T among objs.
func only[T any](t *testing.T, objs []any) *T {
	t.Helper()
	var out []*T
	for _, o := range objs {
		if v, ok := o.(*T); ok {
			out = append(out, v)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d objects of type %T; want one", len(out), *new(T))
	}
	return out[0]
}

// TestKubeStrictDecoding: the decoding the manifest tests rely on refuses
// what a strict API server would.
func TestKubeStrictDecoding(t *testing.T) {
	base := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  completions: 3\n"
	if _, err := decodeManifests([]byte(base + "---\n# only a comment\n")); err != nil {
		t.Fatalf("a valid Job: %v", err)
	}
	for name, doc := range map[string]string{
		"unknown field":  base + "  completion: 3\n",
		"duplicated key": base + "  completions: 4\n",
		"wrong type":     strings.Replace(base, "completions: 3", "completions: three", 1),
		"unknown kind":   "apiVersion: batch/v1\nkind: CronJobb\n",
		"second doc bad": base + "---\napiVersion: v1\nkind: Service\nspec: {portz: []}\n",
	} {
		if _, err := decodeManifests([]byte(doc)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// kubeExpand does what the kubelet does to a container's command and args:
// $(NAME) becomes the value of the container's variable NAME (left as it is
// when there is none) and $$ becomes $.
func kubeExpand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] != '$' || i+1 == len(s):
			b.WriteByte(s[i])
		case s[i+1] == '$':
			b.WriteByte('$')
			i++
		case s[i+1] == '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := s[i+2 : i+2+end]
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// containerEnv is a container's environment as the tests give it: literal
// values, and for a value from a Secret or ConfigMap a stand-in URL.
func containerEnv(c corev1.Container) map[string]string {
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		if e.ValueFrom != nil {
			env[e.Name] = "postgres://from-a-secret@ledger:5432/" + e.Name
		}
	}
	return env
}

// containerArgv is the process a container starts: its command (else the
// image's ENTRYPOINT) and args, expanded.
func containerArgv(t *testing.T, c corev1.Container) []string {
	t.Helper()
	env := containerEnv(c)
	argv := imageEntrypoint(t, c.Image)
	if len(c.Command) > 0 {
		argv = nil
		for _, a := range c.Command {
			argv = append(argv, kubeExpand(a, env))
		}
	}
	for _, a := range c.Args {
		argv = append(argv, kubeExpand(a, env))
	}
	return argv
}

// runContainer runs a container's shell script with the fakes, the
// container's environment and extra.
func runContainer(t *testing.T, c corev1.Container, extra map[string]string) shellRun {
	t.Helper()
	argv := containerArgv(t, c)
	if argv[0] != "/bin/sh" {
		t.Fatalf("container %s: %q is not a shell script", c.Name, argv)
	}
	_, byName := loadDockerfile(t)
	if base := byName[imageStages[c.Image]].base; strings.Contains(base, "distroless") {
		t.Fatalf("container %s: a shell script in %s, whose base %s has no shell", c.Name, c.Image, base)
	}
	env := containerEnv(c)
	for k, v := range extra {
		env[k] = v
	}
	return runScript(t, argv, env, nil)
}
