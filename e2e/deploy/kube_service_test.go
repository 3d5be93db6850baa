package deploy

import (
	"encoding/json"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/idemchaos/idemchaos/scenarios"
)

const inClusterFile = "deploy/kubernetes/in-cluster-service.yaml"

// inCluster is the in-cluster pattern's objects.
type inCluster struct {
	ns    string
	cm    *corev1.ConfigMap
	dep   *appsv1.Deployment
	svc   *corev1.Service
	np    *networkingv1.NetworkPolicy
	job   *batchv1.Job
	flags map[string]string // the idemchaos container's flags
}

// TestKubeInClusterService: idemchaos as a Job reaches the Service by its
// cluster DNS name with --allow-remote, the ledger URL from a Secret, and
// drives the store faults through a Toxiproxy Deployment whose Service,
// ports, config and network policy all agree with its flags.
func TestKubeInClusterService(t *testing.T) {
	objs := loadManifests(t, inClusterFile)
	k := inCluster{cm: only[corev1.ConfigMap](t, objs), dep: only[appsv1.Deployment](t, objs), svc: only[corev1.Service](t, objs),
		np: only[networkingv1.NetworkPolicy](t, objs), job: only[batchv1.Job](t, objs)}
	k.ns = k.job.Namespace
	for _, o := range []string{k.cm.Namespace, k.dep.Namespace, k.svc.Namespace, k.np.Namespace} {
		if k.ns == "" || o != k.ns {
			t.Fatalf("objects in namespaces %q and %q; want one", k.ns, o)
		}
	}
	checkJob(t, k.job)
	checkPod(t, "deployment "+k.dep.Name, k.dep.Spec.Template.Spec)
	if k.job.Spec.BackoffLimit == nil || *k.job.Spec.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v; want 0: a second run would hit the service again", k.job.Spec.BackoffLimit)
	}
	c := k.job.Spec.Template.Spec.Containers[0]
	checkLedgerSecret(t, c)
	argv := containerArgv(t, c)
	if err := cliAccepts(argv, containerEnv(c)); err != nil {
		t.Fatal(err)
	}
	k.flags, _ = flagValues(argv[2:])
	target, err := url.Parse(k.flags["target-url"])
	if err != nil || !strings.HasSuffix(target.Hostname(), "."+k.ns+".svc.cluster.local") || k.flags["allow-remote"] != "true" {
		t.Errorf("--target-url %q --allow-remote %q; want a Service's cluster DNS name in %s, allowed", k.flags["target-url"], k.flags["allow-remote"], k.ns)
	}
	k.checkToxiproxy(t)
}

// checkLedgerSecret: the ledger URL comes from a Secret into the variable
// the CLI reads as --ledger-url's default, never a literal.
func checkLedgerSecret(t *testing.T, c corev1.Container) {
	t.Helper()
	for _, e := range c.Env {
		if e.Name == scenarios.LedgerURLEnv && e.Value == "" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			return
		}
	}
	t.Errorf("container %s: no %s from a Secret (env %+v)", c.Name, scenarios.LedgerURLEnv, c.Env)
}

// checkToxiproxy: --toxiproxy-url is the Service's API port, which leads to
// the port Toxiproxy listens on; --postgres-proxy and --redis-proxy name
// proxies of the mounted config, each listening on a port the Service
// exposes; only idemchaos may reach the API.
func (k inCluster) checkToxiproxy(t *testing.T) {
	t.Helper()
	pod := k.dep.Spec.Template
	if sel := labels.SelectorFromSet(k.dep.Spec.Selector.MatchLabels); !sel.Matches(labels.Set(pod.Labels)) ||
		!labels.SelectorFromSet(k.svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
		t.Errorf("deployment selector %v, service selector %v, pod labels %v", k.dep.Spec.Selector.MatchLabels, k.svc.Spec.Selector, pod.Labels)
	}
	tp := pod.Spec.Containers[0]
	args := map[string]string{}
	for _, a := range tp.Args {
		name, v, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		args[name] = v
	}
	api, err := url.Parse(k.flags["toxiproxy-url"])
	if err != nil || api.Hostname() != k.svc.Name+"."+k.ns+".svc.cluster.local" {
		t.Errorf("--toxiproxy-url %q; want the Service %s.%s.svc.cluster.local", k.flags["toxiproxy-url"], k.svc.Name, k.ns)
	} else if got := k.servicePort(t, tp, api.Port()); got != args["port"] {
		t.Errorf("--toxiproxy-url port %s leads to container port %s; Toxiproxy listens on -port=%s", api.Port(), got, args["port"])
	}
	cfg := k.mountedConfig(t, tp, args["config"])
	for _, f := range []string{"postgres-proxy", "redis-proxy"} {
		port := cfg.port(k.flags[f])
		if port == "" {
			t.Errorf("--%s %q: no such proxy in %s", f, k.flags[f], args["config"])
		} else if got := k.servicePort(t, tp, port); got != port {
			t.Errorf("proxy %s listens on %s; the Service's port %s leads to %q", k.flags[f], port, port, got)
		}
	}
	k.checkPolicy(t, args["port"])
}

// servicePort is the container port the Service's port leads to, or "".
func (k inCluster) servicePort(t *testing.T, c corev1.Container, port string) string {
	t.Helper()
	for _, p := range k.svc.Spec.Ports {
		if strconv.Itoa(int(p.Port)) != port {
			continue
		}
		for _, cp := range c.Ports {
			if cp.Name == p.TargetPort.String() || strconv.Itoa(int(cp.ContainerPort)) == p.TargetPort.String() {
				return strconv.Itoa(int(cp.ContainerPort))
			}
		}
	}
	return ""
}

// mountedConfig is the ConfigMap's file at file in container c.
func (k inCluster) mountedConfig(t *testing.T, c corev1.Container, file string) toxiproxyConfig {
	t.Helper()
	for _, m := range c.VolumeMounts {
		i := slices.IndexFunc(k.dep.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		if i < 0 || path.Dir(file) != m.MountPath {
			continue
		}
		v := k.dep.Spec.Template.Spec.Volumes[i]
		if v.ConfigMap == nil || v.ConfigMap.Name != k.cm.Name {
			continue
		}
		var cfg toxiproxyConfig
		if err := json.Unmarshal([]byte(k.cm.Data[path.Base(file)]), &cfg); err != nil || len(cfg) == 0 {
			t.Fatalf("configmap %s key %s: %v", k.cm.Name, path.Base(file), err)
		}
		return cfg
	}
	t.Fatalf("-config=%s is not a key of configmap %s mounted in %s", file, k.cm.Name, c.Name)
	return nil
}

// checkPolicy: the policy selects the Toxiproxy pods and lets the API port
// be reached only from the idemchaos Job's pods.
func (k inCluster) checkPolicy(t *testing.T, apiPort string) {
	t.Helper()
	pod := labels.Set(k.dep.Spec.Template.Labels)
	if !labels.SelectorFromSet(k.np.Spec.PodSelector.MatchLabels).Matches(pod) {
		t.Fatalf("network policy %s selects %v, not the Toxiproxy pods %v", k.np.Name, k.np.Spec.PodSelector.MatchLabels, pod)
	}
	job := labels.Set(k.job.Spec.Template.Labels)
	for _, rule := range k.np.Spec.Ingress {
		api := slices.ContainsFunc(rule.Ports, func(p networkingv1.NetworkPolicyPort) bool { return p.Port != nil && p.Port.String() == apiPort })
		if !api {
			continue
		}
		for _, from := range rule.From {
			if from.PodSelector == nil || !labels.SelectorFromSet(from.PodSelector.MatchLabels).Matches(job) {
				t.Errorf("network policy %s lets %+v reach the Toxiproxy API", k.np.Name, from)
			}
		}
		if len(rule.From) > 0 {
			return
		}
	}
	t.Errorf("network policy %s: no rule lets the idemchaos pods %v reach port %s", k.np.Name, job, apiPort)
}

// TestToxiproxyImage: compose and the in-cluster manifest run the same
// Toxiproxy.
func TestToxiproxyImage(t *testing.T) {
	dep := only[appsv1.Deployment](t, loadManifests(t, inClusterFile))
	inCluster := dep.Spec.Template.Spec.Containers[0].Image
	if compose := loadCompose(t)["toxiproxy"].Image; compose != inCluster || !strings.HasPrefix(compose, "ghcr.io/shopify/toxiproxy:") {
		t.Errorf("toxiproxy images: %s in %s, %s in %s; want one ghcr.io/shopify/toxiproxy tag", compose, composeFile, inCluster, inClusterFile)
	}
}
