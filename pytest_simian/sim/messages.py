"""The one table of reason and message strings the embedded cluster emits, each tied to its upstream source.

Why it exists: a subject (or a settle probe) must read the same status reasons, event messages and
program output on the embedded cluster as on a kind cluster at the pinned versions (Kubernetes 1.36,
containerd 2.x, busybox 1.36). Every string the simulated kubelet, the controllers and the busybox
model emit is a constant here, with the upstream file and function it mirrors, so golden files are
checked against this table and not against someone's memory. ``docs/sim-messages.md`` renders the
same table; ``tests/sim/test_messages.py`` keeps the two in agreement.

What it must not do: hold logic, or carry a string that was not looked up in the upstream source.
Format placeholders use ``str.format`` names; Go's ``%q`` becomes a literal ``"{x}"`` (the values
are plain image names, container names and object names, which Go would not escape).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MessageSpec", "TABLE", "render_markdown"]


@dataclass(frozen=True)
class MessageSpec:
    name: str
    kind: str  # reason | event | status | program
    text: str
    source: str  # upstream file (repository path)
    where: str  # function / construct in that file


TABLE: list[MessageSpec] = []


def _m(name: str, kind: str, text: str, source: str, where: str) -> str:
    TABLE.append(MessageSpec(name, kind, text, source, where))
    return text


K = "kubernetes/kubernetes "
BB = "busybox 1.36 "

# ---------------------------------------------------------------- kubelet event reasons (events/event.go)
_EV = K + "pkg/kubelet/events/event.go"
REASON_CREATED = _m("REASON_CREATED", "reason", "Created", _EV, "CreatedContainer")
REASON_STARTED = _m("REASON_STARTED", "reason", "Started", _EV, "StartedContainer")
REASON_FAILED = _m("REASON_FAILED", "reason", "Failed", _EV, "FailedToCreateContainer / FailedToPullImage")
REASON_KILLING = _m("REASON_KILLING", "reason", "Killing", _EV, "KillingContainer")
REASON_BACKOFF = _m("REASON_BACKOFF", "reason", "BackOff", _EV, "BackOffStartContainer / BackOffPullImage")
REASON_PULLING = _m("REASON_PULLING", "reason", "Pulling", _EV, "PullingImage")
REASON_PULLED = _m("REASON_PULLED", "reason", "Pulled", _EV, "PulledImage")
REASON_INSPECT_FAILED = _m("REASON_INSPECT_FAILED", "reason", "InspectFailed", _EV, "FailedToInspectImage")
REASON_ERR_IMAGE_NEVER_PULL = _m(
    "REASON_ERR_IMAGE_NEVER_PULL", "reason", "ErrImageNeverPull", _EV, "ErrImageNeverPullPolicy"
)
REASON_FAILED_MOUNT = _m("REASON_FAILED_MOUNT", "reason", "FailedMount", _EV, "FailedMountVolume")
REASON_UNHEALTHY = _m("REASON_UNHEALTHY", "reason", "Unhealthy", _EV, "ContainerUnhealthy")

# ---------------------------------------------------------------- image pulls (images/image_manager.go)
_IM = K + "pkg/kubelet/images/image_manager.go"
MSG_PULLING_IMAGE = _m(
    "MSG_PULLING_IMAGE",
    "event",
    'Pulling image "{image}"',
    _IM,
    "imageManager.pullImage: logIt(PullingImage); same text in stlaz/kubernetes@924d651 (1.35-era copy)",
)
MSG_PULLED_IMAGE = _m(
    "MSG_PULLED_IMAGE",
    "event",
    'Successfully pulled image "{image}" in {duration} ({total} including waiting). Image size: {size} bytes.',
    _IM,
    "imageManager.pullImage: logIt(PulledImage) after a successful pull; same text in "
    "stlaz/kubernetes@924d651 (1.35-era copy)",
)
MSG_IMAGE_PRESENT = _m(
    "MSG_IMAGE_PRESENT",
    "event",
    'Container image "{image}" already present on machine and can be accessed by the pod',
    _IM,
    "EnsureImageExists: image present, KubeletEnsureSecretPulledImages on and MustAttemptImagePull false "
    "(gate beta and on by default since 1.35, kubernetes/kubernetes#135228; gate off: text ends at "
    '"on machine")',
)
MSG_IMAGE_NEVER_PULL = _m(
    "MSG_IMAGE_NEVER_PULL",
    "event",
    'Container image "{image}" is not present with pull policy of Never',
    _IM,
    "imageNotPresentOnNeverPolicyError",
)
MSG_FAILED_TO_PULL = _m(
    "MSG_FAILED_TO_PULL",
    "event",
    'Failed to pull image "{image}": {error}',
    _IM,
    "pullImage: logIt(FailedToPullImage); same text in stlaz/kubernetes@924d651 (1.35-era copy)",
)
MSG_BACKOFF_PULLING = _m(
    "MSG_BACKOFF_PULLING",
    "event",
    'Back-off pulling image "{image}"',
    _IM,
    "pullImage: IsInBackOffSinceUpdate branch; same text in stlaz/kubernetes@924d651 (1.35-era copy)",
)
MSG_BACKOFF_PULLING_STATUS = _m(
    "MSG_BACKOFF_PULLING_STATUS",
    "status",
    'Back-off pulling image "{image}": {prev_reason}: {prev_message}',
    _IM,
    'pullImage: msg + prevPullErrMsg (stored as "%s: %s" of err, msg)',
)
MSG_FAILED_APPLY_DEFAULT_TAG = _m(
    "MSG_FAILED_APPLY_DEFAULT_TAG",
    "status",
    'Failed to apply default image tag "{image}": {error}',
    _IM,
    "EnsureImageExists: applyDefaultImageTag error",
)
# the CRI error as kubelet formats it (grpc status) with containerd's pull error inside
MSG_CRI_PULL_NOT_FOUND = _m(
    "MSG_CRI_PULL_NOT_FOUND",
    "status",
    'rpc error: code = NotFound desc = failed to pull and unpack image "{ref}": failed to resolve reference '
    '"{ref}": {ref}: not found',
    "containerd/containerd internal/cri/server/images/image_pull.go + remotes/docker/resolver.go",
    "PullImage error wrapped by grpc status NotFound (ErrNotFound from the resolver)",
)
MSG_CRI_PULL_UNAUTHORIZED_DOCKERHUB = _m(
    "MSG_CRI_PULL_UNAUTHORIZED_DOCKERHUB",
    "status",
    'rpc error: code = Unknown desc = failed to pull and unpack image "{ref}": failed to resolve reference '
    '"{ref}": pull access denied, repository does not exist or may require authorization: server message: '
    "insufficient_scope: authorization failed",
    "containerd/containerd core/remotes/docker/resolver.go",
    "Docker Hub answer for a repository that does not exist",
)
MSG_CRI_PULL_GHCR_FORBIDDEN = _m(
    "MSG_CRI_PULL_GHCR_FORBIDDEN",
    "status",
    'rpc error: code = Unknown desc = failed to pull and unpack image "{ref}": failed to resolve reference '
    '"{ref}": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to '
    "https://{host}/token?scope=repository%3A{repo_q}%3Apull&service={host}: 403 Forbidden",
    "containerd/containerd core/remotes/docker/auth/fetch.go",
    "FetchToken: anonymous token refused (ghcr.io)",
)
MSG_INVALID_IMAGE_NAME = _m(
    "MSG_INVALID_IMAGE_NAME",
    "status",
    'couldn\'t parse image name "{image}": invalid reference format',
    K + "pkg/util/parsers/parsers.go",
    "ParseImageName",
)

# ---------------------------------------------------------------- container status reasons
_KC = K + "pkg/kubelet/container/sync_result.go"
_IMT = K + "pkg/kubelet/images/types.go"
REASON_CONTAINER_CREATING = _m(
    "REASON_CONTAINER_CREATING",
    "status",
    "ContainerCreating",
    K + "pkg/kubelet/kubelet_pods.go",
    "convertToAPIContainerStatuses: defaultWaitingState",
)
REASON_POD_INITIALIZING = _m(
    "REASON_POD_INITIALIZING",
    "status",
    "PodInitializing",
    K + "pkg/kubelet/kubelet_pods.go",
    "convertToAPIContainerStatuses (init not done)",
)
REASON_CRASH_LOOP = _m("REASON_CRASH_LOOP", "status", "CrashLoopBackOff", _KC, "ErrCrashLoopBackOff")
REASON_ERR_IMAGE_PULL = _m("REASON_ERR_IMAGE_PULL", "status", "ErrImagePull", _IMT, "ErrImagePull")
REASON_IMAGE_PULL_BACKOFF = _m("REASON_IMAGE_PULL_BACKOFF", "status", "ImagePullBackOff", _IMT, "ErrImagePullBackOff")
REASON_INVALID_IMAGE_NAME = _m("REASON_INVALID_IMAGE_NAME", "status", "InvalidImageName", _IMT, "ErrInvalidImageName")
REASON_CREATE_CONFIG_ERROR = _m(
    "REASON_CREATE_CONFIG_ERROR",
    "status",
    "CreateContainerConfigError",
    K + "pkg/kubelet/kuberuntime/kuberuntime_container.go",
    "ErrCreateContainerConfig",
)
REASON_RUN_CONTAINER_ERROR = _m("REASON_RUN_CONTAINER_ERROR", "status", "RunContainerError", _KC, "ErrRunContainer")
REASON_TERMINATED_ERROR = _m(
    "REASON_TERMINATED_ERROR",
    "status",
    "Error",
    "containerd/containerd internal/cri/server/container_status.go",
    "toCRIContainerStatus: exit code != 0",
)
REASON_TERMINATED_COMPLETED = _m(
    "REASON_TERMINATED_COMPLETED",
    "status",
    "Completed",
    "containerd/containerd internal/cri/server/container_status.go",
    "toCRIContainerStatus: exit code 0",
)
REASON_OOM_KILLED = _m(
    "REASON_OOM_KILLED",
    "status",
    "OOMKilled",
    "containerd/containerd internal/cri/server/events.go",
    "handleContainerExit: TaskOOM",
)
REASON_START_ERROR = _m(
    "REASON_START_ERROR",
    "status",
    "StartError",
    "containerd/containerd internal/cri/server/container_start.go",
    "StartContainer failure",
)
MSG_EXEC_NOT_FOUND = _m(
    "MSG_EXEC_NOT_FOUND",
    "status",
    "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: "
    'unable to start container process: error during container init: exec: "{name}": executable file not found '
    "in $PATH: unknown",
    "opencontainers/runc libcontainer/standard_init_linux.go",
    "exec.LookPath failure reported through containerd",
)

# ---------------------------------------------------------------- kuberuntime events and messages
_KRC = K + "pkg/kubelet/kuberuntime/kuberuntime_container.go"
_KRM = K + "pkg/kubelet/kuberuntime/kuberuntime_manager.go"
MSG_CREATED_CONTAINER = _m(
    "MSG_CREATED_CONTAINER",
    "event",
    "Container created",
    _KRC,
    'startContainer: recordContainerEvent(CreatedContainer, "Container created"); the name was dropped in 1.35 '
    "(kubernetes/kubernetes#134043; the container is in the event's fieldPath)",
)
MSG_STARTED_CONTAINER = _m(
    "MSG_STARTED_CONTAINER",
    "event",
    "Container started",
    _KRC,
    'startContainer: recordContainerEvent(StartedContainer, "Container started"); the name was dropped in 1.35 '
    "(kubernetes/kubernetes#134043)",
)
MSG_ERROR_PREFIX = _m(
    "MSG_ERROR_PREFIX",
    "event",
    "Error: {error}",
    _KRC,
    'startContainer: recordContainerEvent(FailedToCreateContainer / FailedToStartContainer, "Error: %v"); '
    "unchanged after #134043",
)
MSG_KILLING_STOPPING = _m(
    "MSG_KILLING_STOPPING",
    "event",
    "Stopping container {name}",
    _KRC,
    'killContainer: default message fmt.Sprintf("Stopping container %s"); unchanged after #134043',
)
MSG_KILLING_LIVENESS = _m(
    "MSG_KILLING_LIVENESS",
    "event",
    "Container {name} failed liveness probe, will be restarted",
    _KRM,
    'computePodActions: "Container %s failed liveness probe" + ", will be restarted", passed to killContainer',
)
MSG_KILLING_STARTUP = _m(
    "MSG_KILLING_STARTUP",
    "event",
    "Container {name} failed startup probe, will be restarted",
    _KRM,
    'computePodActions: "Container %s failed startup probe" + ", will be restarted", passed to killContainer',
)
MSG_BACKOFF_RESTARTING_EVENT = _m(
    "MSG_BACKOFF_RESTARTING_EVENT",
    "event",
    "Back-off restarting failed container {name} in pod {pod}",
    _KRM,
    "doBackOff: recorder.Eventf(BackOffStartContainer)",
)
MSG_CRASHLOOP_STATUS = _m(
    "MSG_CRASHLOOP_STATUS",
    "status",
    "back-off {delay} restarting failed container={name} pod={pod}",
    _KRM,
    'doBackOff: fmt.Errorf("back-off %s restarting failed container=%s pod=%s")',
)
MSG_POD_FORMAT = _m(
    "MSG_POD_FORMAT",
    "status",
    "{name}_{namespace}({uid})",
    K + "pkg/kubelet/util/format/pod.go",
    'Pod(): fmt.Sprintf("%s_%s(%s)")',
)

# ---------------------------------------------------------------- config errors (kubelet_pods.go)
_KP = K + "pkg/kubelet/kubelet_pods.go"
MSG_CONFIGMAP_NOT_FOUND = _m(
    "MSG_CONFIGMAP_NOT_FOUND",
    "status",
    'configmap "{name}" not found',
    K + "pkg/kubelet/configmap/configmap_manager.go",
    'NotFound for corev1.Resource("configmap") (apierrors.NewNotFound)',
)
MSG_SECRET_NOT_FOUND = _m(
    "MSG_SECRET_NOT_FOUND",
    "status",
    'secret "{name}" not found',
    K + "pkg/kubelet/secret/secret_manager.go",
    'NotFound for corev1.Resource("secret") (apierrors.NewNotFound)',
)
MSG_CONFIGMAP_KEY_MISSING = _m(
    "MSG_CONFIGMAP_KEY_MISSING",
    "status",
    "couldn't find key {key} in ConfigMap {namespace}/{name}",
    _KP,
    "makeEnvironmentVariables: ConfigMapKeyRef",
)
MSG_SECRET_KEY_MISSING = _m(
    "MSG_SECRET_KEY_MISSING",
    "status",
    "couldn't find key {key} in Secret {namespace}/{name}",
    _KP,
    "makeEnvironmentVariables: SecretKeyRef",
)
MSG_MOUNT_SETUP_FAILED = _m(
    "MSG_MOUNT_SETUP_FAILED",
    "event",
    'MountVolume.SetUp failed for volume "{volume}" : {error}',
    K + "pkg/volume/util/operationexecutor/operation_generator.go",
    'GenerateMountVolumeFunc: volumeToMount.GenerateError("MountVolume.SetUp failed")',
)

# ---------------------------------------------------------------- probes (prober/prober.go)
_PR = K + "pkg/kubelet/prober/prober.go"
MSG_PROBE_FAILED = _m(
    "MSG_PROBE_FAILED",
    "event",
    "{probe} probe failed: {output}",
    _PR,
    'recordContainerEvent(ContainerUnhealthy, "%s probe failed: %s")',
)
MSG_PROBE_ERRORED = _m(
    "MSG_PROBE_ERRORED",
    "event",
    "{probe} probe errored and resulted in {result} state: {error}",
    _PR,
    'probe: recordContainerEvent(ContainerUnhealthy, "%s probe errored and resulted in %s state: %s") since 1.33 '
    "(kubernetes/kubernetes#125901); result is probe.Result, e.g. unknown",
)
MSG_HTTP_PROBE_STATUS = _m(
    "MSG_HTTP_PROBE_STATUS",
    "event",
    "HTTP probe failed with statuscode: {code}",
    K + "pkg/probe/http/http.go",
    "DoHTTPProbe",
)
MSG_HTTP_PROBE_REFUSED = _m(
    "MSG_HTTP_PROBE_REFUSED",
    "event",
    'Get "{url}": dial tcp {ip}:{port}: connect: connection refused',
    K + "pkg/probe/http/http.go",
    "DoHTTPProbe: client.Do error (net/http url.Error)",
)
MSG_HTTP_PROBE_TIMEOUT = _m(
    "MSG_HTTP_PROBE_TIMEOUT",
    "event",
    'Get "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
    K + "pkg/probe/http/http.go",
    "DoHTTPProbe: client timeout (net/http)",
)
MSG_TCP_PROBE_REFUSED = _m(
    "MSG_TCP_PROBE_REFUSED",
    "event",
    "dial tcp {ip}:{port}: connect: connection refused",
    K + "pkg/probe/tcp/tcp.go",
    "DoTCPProbe: net.DialTimeout error",
)
MSG_EXEC_PROBE_TIMEOUT = _m(
    "MSG_EXEC_PROBE_TIMEOUT",
    "event",
    'command "{command}" timed out',
    "kubernetes/cri-client pkg/remote_runtime.go",
    'execSyncV1: DeadlineExceeded -> exec.NewTimeoutError(fmt.Errorf("command %q timed out"))'
    "; returned as the probe output by pkg/probe/exec/exec.go",
)

# ---------------------------------------------------------------- pod conditions (status/generate.go)
_GEN = K + "pkg/kubelet/status/generate.go"
REASON_CONTAINERS_NOT_READY = _m(
    "REASON_CONTAINERS_NOT_READY", "status", "ContainersNotReady", _GEN, "GenerateContainersReadyCondition"
)
REASON_CONTAINERS_NOT_INITIALIZED = _m(
    "REASON_CONTAINERS_NOT_INITIALIZED", "status", "ContainersNotInitialized", _GEN, "GeneratePodInitializedCondition"
)
REASON_POD_COMPLETED = _m(
    "REASON_POD_COMPLETED", "status", "PodCompleted", _GEN, "generateContainersReadyConditionForTerminalPhase"
)
REASON_POD_FAILED = _m(
    "REASON_POD_FAILED", "status", "PodFailed", _GEN, "generateContainersReadyConditionForTerminalPhase"
)
MSG_UNREADY_CONTAINERS = _m(
    "MSG_UNREADY_CONTAINERS",
    "status",
    "containers with unready status: [{names}]",
    _GEN,
    "GenerateContainersReadyCondition (Go %s of a []string)",
)
MSG_INCOMPLETE_CONTAINERS = _m(
    "MSG_INCOMPLETE_CONTAINERS",
    "status",
    "containers with incomplete status: [{names}]",
    _GEN,
    "GeneratePodInitializedCondition (Go %s of a []string)",
)

# ---------------------------------------------------------------- busybox program output
BUSYBOX_SH_NOT_FOUND = _m(
    "BUSYBOX_SH_NOT_FOUND",
    "program",
    "{name}: not found",
    BB + "shell/ash.c",
    'shellexec -> ash_msg_and_raise (errmsg(ENOENT, E_EXEC)); printed after "sh: "',
)
BUSYBOX_BAD_ADDRESS = _m(
    "BUSYBOX_BAD_ADDRESS",
    "program",
    "{applet}: bad address '{host}'",
    BB + "libbb/xconnect.c",
    "str2sockaddr: getaddrinfo failure",
)
BUSYBOX_CANT_CONNECT = _m(
    "BUSYBOX_CANT_CONNECT",
    "program",
    "{applet}: can't connect to remote host ({ip}): {error}",
    BB + "libbb/xconnect.c",
    'xconnect: bb_perror_msg_and_die("%s (%s)", ...)',
)
BUSYBOX_WGET_CONNECTING = _m(
    "BUSYBOX_WGET_CONNECTING",
    "program",
    "Connecting to {host} ({addr})",
    BB + "networking/wget.c",
    'download_one_url: fprintf(stderr, "Connecting to %s (%s)\\n")',
)
BUSYBOX_WGET_TIMED_OUT = _m(
    "BUSYBOX_WGET_TIMED_OUT",
    "program",
    "wget: download timed out",
    BB + "networking/wget.c",
    'alarm_handler: bb_simple_error_msg_and_die("download timed out")',
)
BUSYBOX_WGET_SERVER_ERROR = _m(
    "BUSYBOX_WGET_SERVER_ERROR",
    "program",
    "wget: server returned error: HTTP/1.1 {status} {reason}",
    BB + "networking/wget.c",
    'download_one_url: bb_error_msg_and_die("server returned error: %s")',
)
BUSYBOX_WGET_NOT_HTTP = _m(
    "BUSYBOX_WGET_NOT_HTTP", "program", "wget: not an http or ftp url: {url}", BB + "networking/wget.c", "parse_url"
)
BUSYBOX_CAT_CANT_OPEN = _m(
    "BUSYBOX_CAT_CANT_OPEN",
    "program",
    "cat: can't open '{path}': No such file or directory",
    BB + "libbb/wfopen_input.c",
    "open_or_warn_stdin -> bb_perror_msg(\"can't open '%s'\")",
)
BUSYBOX_SLEEP_INVALID = _m(
    "BUSYBOX_SLEEP_INVALID",
    "program",
    "sleep: invalid number '{arg}'",
    BB + "libbb/xatonum_template.c",
    "xstrtou/duration parse: bb_error_msg_and_die(\"invalid number '%s'\")",
)


# ---------------------------------------------------------------- scheduler (events.k8s.io API)
_SCH = K + "pkg/scheduler/"
REASON_SCHEDULED = _m(
    "REASON_SCHEDULED", "reason", "Scheduled", _SCH + "schedule_one.go", "handleBindingCycleError/finishBinding"
)
MSG_SCHEDULED = _m(
    "MSG_SCHEDULED",
    "event",
    "Successfully assigned {namespace}/{name} to {node}",
    _SCH + "schedule_one.go",
    'bindingCycle: fwk.EventRecorder().Eventf(..., "Scheduled", "Binding", "Successfully assigned %v/%v to %v")',
)
REASON_FAILED_SCHEDULING = _m(
    "REASON_FAILED_SCHEDULING", "reason", "FailedScheduling", _SCH + "schedule_one.go", "handleSchedulingFailure"
)
REASON_UNSCHEDULABLE = _m(
    "REASON_UNSCHEDULABLE", "status", "Unschedulable", "kubernetes/api core/v1/types.go", "PodReasonUnschedulable"
)
MSG_FIT_ERROR = _m(
    "MSG_FIT_ERROR",
    "status",
    "0/{total} nodes are available: {reasons}. preemption: 0/{total} nodes are available: {preemption}.",
    _SCH + "framework/types.go",
    'FitError.Error (NoNodeAvailableMsg + reasons + PostFilterMsg + ".")',
)
MSG_INSUFFICIENT = _m(
    "MSG_INSUFFICIENT",
    "status",
    "Insufficient {resource}",
    _SCH + "framework/plugins/noderesources/fit.go",
    'fitsRequest: "Insufficient %v"',
)
MSG_TOO_MANY_PODS = _m(
    "MSG_TOO_MANY_PODS", "status", "Too many pods", _SCH + "framework/plugins/noderesources/fit.go", "fitsRequest"
)
MSG_NODE_SELECTOR_MISMATCH = _m(
    "MSG_NODE_SELECTOR_MISMATCH",
    "status",
    "node(s) didn't match Pod's node affinity/selector",
    _SCH + "framework/plugins/nodeaffinity/node_affinity.go",
    "ErrReasonPod",
)
MSG_UNBOUND_IMMEDIATE_PVC = _m(
    "MSG_UNBOUND_IMMEDIATE_PVC",
    "status",
    "pod has unbound immediate PersistentVolumeClaims",
    _SCH + "framework/plugins/volumebinding/volume_binding.go",
    "PreFilter",
)
MSG_PVC_NOT_FOUND = _m(
    "MSG_PVC_NOT_FOUND",
    "status",
    'persistentvolumeclaim "{name}" not found',
    _SCH + "framework/plugins/volumebinding/volume_binding.go",
    "PreFilter: PVC lister NotFound",
)
MSG_NO_PREEMPTION_VICTIMS = _m(
    "MSG_NO_PREEMPTION_VICTIMS",
    "status",
    "{count} No preemption victims found for incoming pod.",
    _SCH + "framework/preemption/preemption.go",
    "findCandidates",
)
MSG_PREEMPTION_NOT_HELPFUL = _m(
    "MSG_PREEMPTION_NOT_HELPFUL",
    "status",
    "{count} Preemption is not helpful for scheduling.",
    _SCH + "framework/plugins/defaultpreemption/default_preemption.go",
    "PodEligibleToPreemptOthers / UnschedulableAndUnresolvable nodes",
)

# ---------------------------------------------------------------- workload controllers
_CU = K + "pkg/controller/controller_utils.go"
REASON_SUCCESSFUL_CREATE = _m(
    "REASON_SUCCESSFUL_CREATE", "reason", "SuccessfulCreate", _CU, "SuccessfulCreatePodReason"
)
MSG_CREATED_POD = _m("MSG_CREATED_POD", "event", "Created pod: {name}", _CU, "RealPodControl.createPods")
REASON_SUCCESSFUL_DELETE = _m(
    "REASON_SUCCESSFUL_DELETE", "reason", "SuccessfulDelete", _CU, "SuccessfulDeletePodReason"
)
MSG_DELETED_POD = _m("MSG_DELETED_POD", "event", "Deleted pod: {name}", _CU, "RealPodControl.DeletePod")
_DU = K + "pkg/controller/deployment/util/deployment_util.go"
REASON_SCALING_RS = _m(
    "REASON_SCALING_RS", "reason", "ScalingReplicaSet", K + "pkg/controller/deployment/sync.go", "scaleReplicaSet"
)
MSG_SCALED_RS = _m(
    "MSG_SCALED_RS",
    "event",
    "Scaled {direction} replica set {name} from {old} to {new}",
    K + "pkg/controller/deployment/sync.go",
    'scaleReplicaSet: "Scaled %s replica set %s from %d to %d"',
)
REASON_MIN_AVAILABLE = _m("REASON_MIN_AVAILABLE", "status", "MinimumReplicasAvailable", _DU, "MinimumReplicasAvailable")
MSG_MIN_AVAILABLE = _m(
    "MSG_MIN_AVAILABLE",
    "status",
    "Deployment has minimum availability.",
    K + "pkg/controller/deployment/sync.go",
    "syncRolloutStatus",
)
REASON_MIN_UNAVAILABLE = _m(
    "REASON_MIN_UNAVAILABLE", "status", "MinimumReplicasUnavailable", _DU, "MinimumReplicasUnavailable"
)
MSG_MIN_UNAVAILABLE = _m(
    "MSG_MIN_UNAVAILABLE",
    "status",
    "Deployment does not have minimum availability.",
    K + "pkg/controller/deployment/sync.go",
    "syncRolloutStatus",
)
REASON_NEW_RS_CREATED = _m("REASON_NEW_RS_CREATED", "status", "NewReplicaSetCreated", _DU, "NewRSReason")
MSG_NEW_RS_CREATED = _m(
    "MSG_NEW_RS_CREATED",
    "status",
    'Created new replica set "{name}"',
    K + "pkg/controller/deployment/sync.go",
    "getNewReplicaSet",
)
REASON_RS_UPDATED = _m("REASON_RS_UPDATED", "status", "ReplicaSetUpdated", _DU, "ReplicaSetUpdatedReason")
MSG_RS_PROGRESSING = _m(
    "MSG_RS_PROGRESSING",
    "status",
    'ReplicaSet "{name}" is progressing.',
    _DU,
    "ReplicaSetUpdatedReason message (progress.go syncRolloutStatus)",
)
REASON_NEW_RS_AVAILABLE = _m("REASON_NEW_RS_AVAILABLE", "status", "NewReplicaSetAvailable", _DU, "NewRSAvailableReason")
MSG_RS_PROGRESSED = _m(
    "MSG_RS_PROGRESSED",
    "status",
    'ReplicaSet "{name}" has successfully progressed.',
    _DU,
    "NewRSAvailableReason message",
)
REASON_PROGRESS_DEADLINE = _m("REASON_PROGRESS_DEADLINE", "status", "ProgressDeadlineExceeded", _DU, "TimedOutReason")
MSG_RS_TIMED_OUT = _m(
    "MSG_RS_TIMED_OUT", "status", 'ReplicaSet "{name}" has timed out progressing.', _DU, "TimedOutReason message"
)
_JC = K + "pkg/controller/job/job_controller.go"
REASON_BACKOFF_LIMIT = _m(
    "REASON_BACKOFF_LIMIT", "reason", "BackoffLimitExceeded", _JC, "batch.JobReasonBackoffLimitExceeded"
)
MSG_BACKOFF_LIMIT = _m(
    "MSG_BACKOFF_LIMIT",
    "event",
    "Job has reached the specified backoff limit",
    _JC,
    "syncJob: jobCtx.finishedCondition",
)
REASON_COMPLETIONS_REACHED = _m(
    "REASON_COMPLETIONS_REACHED", "status", "CompletionsReached", _JC, "batch.JobReasonCompletionsReached"
)
MSG_COMPLETIONS_REACHED = _m(
    "MSG_COMPLETIONS_REACHED",
    "status",
    "Reached expected number of succeeded pods",
    _JC,
    "syncJob: SuccessCriteriaMet / Complete condition",
)
REASON_JOB_COMPLETED = _m("REASON_JOB_COMPLETED", "reason", "Completed", _JC, 'syncJob: recorder.Event("Completed")')
MSG_JOB_COMPLETED = _m("MSG_JOB_COMPLETED", "event", "Job completed", _JC, "syncJob")
_PV = K + "pkg/controller/volume/persistentvolume/pv_controller.go"
REASON_PROVISIONING_FAILED = _m(
    "REASON_PROVISIONING_FAILED", "reason", "ProvisioningFailed", _PV, "events.ProvisioningFailed"
)
MSG_STORAGECLASS_NOT_FOUND = _m(
    "MSG_STORAGECLASS_NOT_FOUND",
    "event",
    'storageclass.storage.k8s.io "{name}" not found',
    _PV,
    "provisionClaim: getProvisionerNameFromClaim / class lister NotFound",
)
REASON_WAIT_FOR_FIRST_CONSUMER = _m(
    "REASON_WAIT_FOR_FIRST_CONSUMER", "reason", "WaitForFirstConsumer", _PV, "events.WaitForFirstConsumer"
)
MSG_WAIT_FOR_FIRST_CONSUMER = _m(
    "MSG_WAIT_FOR_FIRST_CONSUMER",
    "event",
    "waiting for first consumer to be created before binding",
    _PV,
    "syncUnboundClaim",
)


# ---------------------------------------------------------------- disruption controller (PodDisruptionBudget status)
_POL = "kubernetes/api policy/v1/types.go"
REASON_SUFFICIENT_PODS = _m("REASON_SUFFICIENT_PODS", "status", "SufficientPods", _POL, "SufficientPodsReason")
REASON_INSUFFICIENT_PODS = _m("REASON_INSUFFICIENT_PODS", "status", "InsufficientPods", _POL, "InsufficientPodsReason")


def render_markdown() -> str:
    """The table as docs/sim-messages.md carries it (the test compares the two)."""
    lines = [
        "| name | kind | text | upstream source | where |",
        "|---|---|---|---|---|",
    ]
    for m in TABLE:
        text = m.text.replace("|", "\\|")
        lines.append(f"| `{m.name}` | {m.kind} | `{text}` | {m.source} | {m.where.replace('|', '/')} |")
    return "\n".join(lines) + "\n"
