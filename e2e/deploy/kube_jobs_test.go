package deploy

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

const (
	indexedJobFile = "deploy/kubernetes/matrix-indexed-job.yaml"
	mergeJobFile   = "deploy/kubernetes/matrix-merge-job.yaml"
)

// checkPod: what every pod of the manifests must have: the idemchaos
// images under their names, the uid the image runs as, no root, no
// privilege escalation, resources requested and memory bounded.
func checkPod(t *testing.T, where string, spec corev1.PodSpec) {
	t.Helper()
	_, byName := loadDockerfile(t)
	pod := spec.SecurityContext
	if pod == nil || pod.RunAsNonRoot == nil || !*pod.RunAsNonRoot {
		t.Errorf("%s: the pod does not set runAsNonRoot: true", where)
	}
	for _, c := range spec.Containers {
		uid := pod.RunAsUser
		if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil {
			uid = c.SecurityContext.RunAsUser
		}
		if stage, ok := imageStages[c.Image]; ok {
			if want := int64(stageUID(t, byName[stage])); uid == nil || *uid != want {
				t.Errorf("%s: container %s runs as %v; want uid %d, the user of %s", where, c.Name, uid, want, c.Image)
			}
		} else if strings.Contains(c.Image, "idemchaos") {
			t.Errorf("%s: container %s: image %s; want one of %v, the names the README builds", where, c.Name, c.Image, imageStages)
		}
		if uid == nil || *uid == 0 {
			t.Errorf("%s: container %s has no non-root runAsUser", where, c.Name)
		}
		sc := c.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("%s: container %s allows privilege escalation", where, c.Name)
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s: container %s: resources %+v; want cpu and memory requested, memory limited", where, c.Name, c.Resources)
		}
	}
}

// checkJob: a Job's pods never restart in place (a rerun is a new pod,
// whose exit code the Job counts) and it is bounded in time.
func checkJob(t *testing.T, j *batchv1.Job) {
	t.Helper()
	if j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("job %s: restartPolicy %q; want Never", j.Name, j.Spec.Template.Spec.RestartPolicy)
	}
	if j.Spec.ActiveDeadlineSeconds == nil {
		t.Errorf("job %s: no activeDeadlineSeconds", j.Name)
	}
	checkPod(t, "job "+j.Name, j.Spec.Template.Spec)
}

// resultsMount is where a Job's pod mounts the claim.
func resultsMount(t *testing.T, j *batchv1.Job) (claim, mount string) {
	t.Helper()
	spec := j.Spec.Template.Spec
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		for _, m := range spec.Containers[0].VolumeMounts {
			if m.Name == v.Name {
				return v.PersistentVolumeClaim.ClaimName, m.MountPath
			}
		}
	}
	t.Fatalf("job %s mounts no claim", j.Name)
	return "", ""
}

// indexedShards runs the Indexed Job's script for every completion index
// and returns the directory each shard writes, by index.
func indexedShards(t *testing.T, j *batchv1.Job) []string {
	t.Helper()
	n := int(*j.Spec.Completions)
	_, mount := resultsMount(t, j)
	var dirs []string
	for i := range n {
		r := runContainer(t, j.Spec.Template.Spec.Containers[0], map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i)})
		calls := r.idemchaosCalls()
		if r.code != 0 || len(calls) != 1 {
			t.Fatalf("index %d: exit %d, idemchaos calls %q\n%s", i, r.code, calls, r.output)
		}
		if err := cliAccepts(calls[0], nil); err != nil {
			t.Fatalf("index %d: %v", i, err)
		}
		flags, _ := flagValues(calls[0][2:])
		if want := fmt.Sprintf("%d/%d", i+1, n); calls[0][1] != "matrix" || flags["shard"] != want {
			t.Errorf("index %d runs %q; want matrix --shard %s (completions %d)", i, calls[0], want, n)
		}
		out := flags["out"]
		if path.Dir(out) != mount {
			t.Errorf("index %d writes %q, not a directory of the volume at %s", i, out, mount)
		}
		before := r.calls[:slices.IndexFunc(r.calls, func(c []string) bool { return c[0] == "idemchaos" })]
		if !slices.ContainsFunc(before, func(c []string) bool { return slices.Equal(c, []string{"rm", "-rf", out}) }) {
			t.Errorf("index %d: %s is not emptied before the shard runs (a retried pod would find it); calls %q", i, out, r.calls)
		}
		dirs = append(dirs, out)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(dirs)))) != n {
		t.Errorf("shard directories %q are not distinct", dirs)
	}
	return dirs
}

// TestKubeIndexedJob: completions = parallelism = N, completion index i
// runs matrix --shard i+1/N into its own directory of the shared volume,
// the pod passes when its shard ran and a usage error fails the Job.
func TestKubeIndexedJob(t *testing.T) {
	objs := loadManifests(t, indexedJobFile)
	pvc := only[corev1.PersistentVolumeClaim](t, objs)
	j := only[batchv1.Job](t, objs)
	checkJob(t, j)
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v; want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || *s.Completions < 2 || s.Parallelism == nil || *s.Parallelism != *s.Completions {
		t.Fatalf("completions %v, parallelism %v; want N > 1 of each", s.Completions, s.Parallelism)
	}
	if claim, _ := resultsMount(t, j); claim != pvc.Name {
		t.Errorf("the job mounts claim %q; the file declares %q", claim, pvc.Name)
	}
	indexedShards(t, j)
	c := s.Template.Spec.Containers[0]
	for code, want := range map[int]int{exitPass: 0, exitViolated: 0, exitInconclusive: 0, exitUsage: exitUsage, exitEnv: exitEnv, exitInterrupted: exitInterrupted} {
		r := runContainer(t, c, map[string]string{"JOB_COMPLETION_INDEX": "0", "FAKE_EXIT": strconv.Itoa(code)})
		if r.code != want {
			t.Errorf("idemchaos exit %d: the pod exits %d; want %d\n%s", code, r.code, want, r.output)
		}
	}
	if !failsJobOn(s.PodFailurePolicy, c.Name, exitUsage) {
		t.Errorf("podFailurePolicy %+v does not fail the Job on exit %d (bad flags fail every shard alike)", s.PodFailurePolicy, exitUsage)
	}
}

// failsJobOn reports whether a rule fails the Job when container exits
// with code.
func failsJobOn(p *batchv1.PodFailurePolicy, container string, code int) bool {
	if p == nil {
		return false
	}
	for _, r := range p.Rules {
		e := r.OnExitCodes
		if r.Action == batchv1.PodFailurePolicyActionFailJob && e != nil && e.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn &&
			e.ContainerName != nil && *e.ContainerName == container && slices.Contains(e.Values, int32(code)) {
			return true
		}
	}
	return false
}

// TestKubeMergeJob: the merge Job reads exactly the directories the
// Indexed Job's shards write, on the same claim, renders the merged run
// when there is one, and exits with the run's verdict, never retried.
func TestKubeMergeJob(t *testing.T) {
	shardJob := only[batchv1.Job](t, loadManifests(t, indexedJobFile))
	j := only[batchv1.Job](t, loadManifests(t, mergeJobFile))
	checkJob(t, j)
	if j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v; want 0: a verdict is not retried", j.Spec.BackoffLimit)
	}
	claim, mount := resultsMount(t, j)
	if wantClaim, wantMount := resultsMount(t, shardJob); claim != wantClaim || mount != wantMount {
		t.Errorf("merge mounts %s at %s; the shards write to %s at %s", claim, mount, wantClaim, wantMount)
	}
	shards := indexedShards(t, shardJob)
	c := j.Spec.Template.Spec.Containers[0]
	for _, merged := range []int{exitPass, exitViolated, exitInconclusive, exitUsage} {
		r := runContainer(t, c, map[string]string{"FAKE_EXIT_merge": strconv.Itoa(merged)})
		calls := r.idemchaosCalls()
		if r.code != merged || len(calls) == 0 {
			t.Fatalf("merge exit %d: the pod exits %d after %q; want %d\n%s", merged, r.code, calls, merged, r.output)
		}
		for _, call := range calls {
			if err := cliAccepts(call, nil); err != nil {
				t.Error(err)
			}
		}
		flags, dirs := flagValues(calls[0][2:])
		if calls[0][1] != "merge" || !slices.Equal(dirs, shards) || slices.Contains(shards, flags["out"]) {
			t.Fatalf("%q; want idemchaos merge %s --out DIR", calls[0], strings.Join(shards, " "))
		}
		formats := reportFormats(t, calls[1:], flags["out"])
		want := []string{"junit", "html", "markdown"}
		if merged == exitUsage {
			want = nil // no merged run: nothing to render
		}
		if !slices.Equal(formats, want) {
			t.Errorf("merge exit %d: reports %q; want %q", merged, formats, want)
		}
	}
}

// reportFormats are the formats of report calls that read dir.
func reportFormats(t *testing.T, calls [][]string, dir string) []string {
	t.Helper()
	var out []string
	for _, c := range calls {
		flags, pos := flagValues(c[2:])
		if c[1] != "report" || !slices.Equal(pos, []string{dir}) {
			t.Errorf("%q: want idemchaos report %s ...", c, dir)
			continue
		}
		out = append(out, flags["format"])
	}
	return out
}
