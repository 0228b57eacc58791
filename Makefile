# cubestudio.ascend: developer and CI entry points. Every target bootstraps what it needs
# (Debian packages, dockerd, images, the venv) through tools/bootstrap.sh, so each one works on
# a fresh Debian 12 machine as root.  `make help` lists them.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT := $(CURDIR)
VENV := $(ROOT)/.venv
BIN := $(VENV)/bin
# The tested minimum: the oldest supported ansible-core (requirements-min.txt) in a venv of its own.
VENV_MIN := $(ROOT)/.venv-min
COLLECTION_DIR := $(ROOT)/.build/collections/ansible_collections/cubestudio/ascend
PYTHON_VERSION := 3.12
# Tools from the venv come first; ansible-test and molecule look for them on PATH.
export PATH := $(BIN):$(PATH)
export ANSIBLE_CONFIG := $(ROOT)/ansible.cfg
# The node image by its content tag, not :latest: two checkouts on one machine (or an older
# image) can never hand a scenario the wrong image.
export CUBESTUDIO_NODE_IMAGE ?= $(shell tools/bootstrap.sh image-name)
MOLECULE_ARGS ?=
SCENARIO ?=
# Go module and build caches of tools/gobuild.sh and the Go tests, and the binaries it built
# (by content): outside the checkout, so that every checkout and CI's fresh clone reuse them.
export GO_CACHE ?= $(HOME)/.cache/cubestudio-ascend/go

.PHONY: help setup setup-min images lint sanity units sanity-min units-min promtool simulator mindcluster docker-runtime molecule build-check galaxy-importer docs-site ee test demo k8s crictl containerd2 cluster testbed cluster-clean bench demo-clean docs clean

help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

setup: ## Debian packages, .venv with the pinned toolchain, collection tree, offline get-pip
	@tools/bootstrap.sh debs venv tree getpip

setup-min: setup ## .venv-min on the tested minimum ansible-core (requirements-min.txt + constraints-min.txt)
	@tools/bootstrap.sh venv-min

images: setup ## dockerd running and the simulated-node images built (cached)
	@tools/bootstrap.sh dockerd images

lint: setup ## yamllint, ansible-lint (production), ruff, vermin (Python 3.8 floor), spec and docs checks, YAML logic budget, antsibull-docs lint
	yamllint --strict .
	ansible-lint --offline
	ruff check plugins tests tools
	ruff format --check plugins tests tools
	vermin --no-tips --violations --target=3.8- --eval-annotations --no-parse-comments plugins/modules plugins/module_utils
	python tools/check_argument_specs.py
	python tools/gen_docs.py --check
	python tools/yaml_logic.py --check
	antsibull-changelog lint
	cd $(COLLECTION_DIR) && antsibull-docs lint-collection-docs --plugin-docs .

sanity: setup ## ansible-test sanity (offline, local venv)
	tools/ansible_test.sh sanity --python $(PYTHON_VERSION) --color no

# On the tested minimum, only the sanity tests whose answer can differ between ansible-core
# versions (the code, its imports, the modules' interface and docs as that core reads them); the
# linters (pylint, pep8, shellcheck, yamllint...) answer the same on every core and run in
# `make sanity`.
SANITY_MIN_TESTS := compile import validate-modules ansible-doc runtime-metadata action-plugin-docs
sanity-min: setup-min ## ansible-test sanity on the tested minimum ansible-core (.venv-min): the core-dependent tests only
	CUBESTUDIO_VENV=$(VENV_MIN) tools/ansible_test.sh sanity --python $(PYTHON_VERSION) --color no $(foreach t,$(SANITY_MIN_TESTS),--test $(t))

promtool: setup ## the exporter's alert rules: promtool check rules and promtool test rules (tests/promtool)
	promtool check rules roles/exporter/files/ascend-npu.rules.yml
	cd tests/promtool && promtool test rules *.test.yml

units: setup ## ansible-test units
	tools/ansible_test.sh units --python $(PYTHON_VERSION) --color no

units-min: setup-min ## ansible-test units on the tested minimum ansible-core (.venv-min)
	CUBESTUDIO_VENV=$(VENV_MIN) tools/ansible_test.sh units --python $(PYTHON_VERSION) --color no

simulator: images ## tests of the Ascend node simulator (installers' CLI, npu-smi golden tests, libdcmi, hccn_tool)
	PYTHONPATH=$(ROOT)/.build/collections python -m pytest -q -p no:cacheprovider tests/simulator tests/cri

# Huawei's real device plugin and npu-exporter of each MindCluster tag, built from Huawei's source
# (MINDCLUSTER_SRC, default ../shared/mindcluster; never copied into the collection) with the
# flags of their build.sh, caches and binaries in MINDCLUSTER_CACHE (~/.cache/cubestudio-ascend).
mindcluster: setup ## Huawei's device plugin and npu-exporter (7.3.0, 26.0.0, 26.1.0) from their source, as release image tarballs in .build/images/mindcluster (cold: ~15 min)
	python tests/mindcluster/build_images.py --out $(ROOT)/.build/images/mindcluster

# Huawei's Ascend Docker Runtime package of each MindCluster tag, made by Huawei's own
# build/build.sh from a scratch copy of its source (cmake, go build, Debian's makeself with
# Huawei's header; the libboundscheck stand-in of tests/mindcluster/securec_shim), cached by
# content in MINDCLUSTER_CACHE; then the fast check that each package is Huawei's.
DOCKER_RUNTIME_TAGS := v7.3.0 v26.0.0 v26.1.0
docker-runtime: setup ## Huawei's Ascend-docker-runtime_<ver>_linux-<arch>.run (7.3.0, 26.0.0, 26.1.0) built by its build.sh into .build/mindcluster/docker-runtime, checked (cold: ~2 min a tag; warm: seconds)
	$(foreach t,$(DOCKER_RUNTIME_TAGS),tests/mindcluster/build_docker_runtime.sh $(t) .build/mindcluster/docker-runtime$(newline))
	python -m pytest -q -p no:cacheprovider tests/mindcluster/test_docker_runtime_package.py

# Kubernetes from the Go modules pinned in tests/testbed/go.mod: one multi-call binary (apiserver,
# controller-manager, scheduler, kubelet, kube-proxy, kubectl, etcd) and a static pause binary.
K8S_VERSION := $(shell awk '$$1 == "k8s.io/kubernetes" {print $$2; exit}' tests/testbed/go.mod)
K8S_LDFLAGS := -s -w $(foreach pkg,k8s.io/component-base/version k8s.io/client-go/pkg/version,\
	-X $(pkg).gitVersion=$(K8S_VERSION) -X $(pkg).gitMajor=$(word 2,$(subst ., ,$(K8S_VERSION:v%=x.%))) \
	-X $(pkg).gitMinor=$(word 3,$(subst ., ,$(K8S_VERSION:v%=x.%))) -X $(pkg).gitTreeState=clean \
	-X $(pkg).buildDate=1970-01-01T00:00:00Z)

# The CNI reference plugins a Ready node needs and crictl, each from a module of its own under
# tests/tools (their dependencies never meet Kubernetes' own pins).
CNI_MODULE := github.com/containernetworking/plugins
CNI_VERSION := $(shell awk '$$1 == "$(CNI_MODULE)" {print $$2; exit}' tests/tools/cni/go.mod)
CNI_PLUGINS := main/bridge main/loopback ipam/host-local meta/portmap
CRICTL_VERSION := $(shell awk '$$1 == "sigs.k8s.io/cri-tools" {print $$2; exit}' tests/tools/crictl/go.mod)
define newline


endef

k8s: setup crictl ## Kubernetes, CNI plugins and crictl from the pinned Go modules (cached by content; cold: ~6 min on 2 cores)
	tools/gobuild.sh tests/testbed .build/k8s/bin/kube ./cmd/kube -ldflags "$(K8S_LDFLAGS)"
	CGO_ENABLED=0 tools/gobuild.sh tests/testbed .build/k8s/bin/pause ./cmd/pause -ldflags "-s -w"
	$(foreach p,$(CNI_PLUGINS),CGO_ENABLED=0 tools/gobuild.sh tests/tools/cni .build/cni/bin/$(notdir $(p)) $(CNI_MODULE)/plugins/$(p) -ldflags "-s -w -X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=$(CNI_VERSION)"$(newline))

# containerd 2.x from the module pinned in tests/tools/containerd/go.mod (Debian 12 ships 1.6):
# the daemon, ctr and the runc shim, static (CGO_ENABLED=0 leaves out the btrfs snapshotter,
# which needs libbtrfs headers; the devmapper and zfs snapshotters are left out by tags, no
# node uses them). runc stays Debian's. Used by the molecule scenario ascend_runtime_containerd2.
CONTAINERD2_MODULE := github.com/containerd/containerd/v2
CONTAINERD2_VERSION := $(shell awk '$$1 == "$(CONTAINERD2_MODULE)" {print $$2; exit}' tests/tools/containerd/go.mod)
CONTAINERD2_LDFLAGS := -s -w -X $(CONTAINERD2_MODULE)/version.Version=$(CONTAINERD2_VERSION) \
	-X $(CONTAINERD2_MODULE)/version.Revision=module-proxy -X $(CONTAINERD2_MODULE)/version.Package=$(CONTAINERD2_MODULE)
CONTAINERD2_TAGS := no_btrfs,no_devmapper,no_zfs,no_tracing

containerd2: setup ## containerd 2.x (containerd, ctr, runc shim) from the pinned Go module into .build/containerd2/bin (cold: ~1 min)
	$(foreach c,containerd ctr containerd-shim-runc-v2,CGO_ENABLED=0 tools/gobuild.sh tests/tools/containerd .build/containerd2/bin/$(c) $(CONTAINERD2_MODULE)/cmd/$(c) -tags $(CONTAINERD2_TAGS) -ldflags "$(CONTAINERD2_LDFLAGS)"$(newline))

crictl: setup ## crictl (sigs.k8s.io/cri-tools) from tests/tools/crictl into .build/k8s/bin (the CRI client of the tests)
	CGO_ENABLED=0 tools/gobuild.sh tests/tools/crictl .build/k8s/bin/crictl sigs.k8s.io/cri-tools/cmd/crictl -ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=$(CRICTL_VERSION)"

cluster: k8s images mindcluster ## control plane + BED_NODES simulated Ascend nodes (default 1), admin kubeconfig in .build/cluster/kubeconfig
	python tests/testbed/bed.py up

# TESTBED_TESTS: which tests (make test runs them in three shards, each on a bed of its own named
# by BED_NAME, BED_DIR and BED_SUBNET; see tools/test.py).
TESTBED_TESTS ?= tests/mindcluster tests/testbed
testbed: k8s images mindcluster docker-runtime ## the test-bed tests (tests/testbed) on a cluster of their own, removed afterwards (also on failure); TESTBED_TESTS=paths for some
	python tests/testbed/bed.py down >/dev/null
	rc=0; python tests/testbed/bed.py up && PYTHONPATH=$(ROOT)/.build/collections python -m pytest -q -p no:cacheprovider --durations=25 $(TESTBED_TESTS) || rc=$$?; \
	python tests/testbed/bed.py down; exit $$rc

cluster-clean: ## remove the test bed's containers, network and .build/cluster
	python tests/testbed/bed.py down

molecule: images containerd2 crictl docker-runtime ## every molecule scenario and `site@min` (site on .venv-min); SCENARIO=name for one (containerd 2.x for ascend_runtime_containerd2)
	tools/run_molecule.sh $(SCENARIO)

build-check: setup ## galaxy build, install into an empty path, syntax-check the installed site playbook
	tools/build_check.sh

# The execution environment for AWX/AAP: the build context only (building the image needs the
# base image and Galaxy, i.e. registries this machine does not reach; see docs/fleet.md).
EE_DIR := $(ROOT)/.build/ee
ee: setup ## execution environment build context (galaxy build + ansible-builder create into .build/ee/context), checked by tests/ee
	rm -rf $(EE_DIR) && mkdir -p $(EE_DIR)
	ansible-galaxy collection build --force --output-path $(EE_DIR) $(ROOT)
	mv $(EE_DIR)/cubestudio-ascend-*.tar.gz $(EE_DIR)/cubestudio-ascend.tar.gz
	ansible-builder create --file execution-environment.yml --context $(EE_DIR)/context --output-filename Containerfile
	EE_CONTEXT=$(EE_DIR)/context python -m pytest -q -p no:cacheprovider tests/ee

# The same targets, scheduled by measured cost (tools/test.py: the builds in a lane of their own,
# every other step, each molecule scenario and two test-bed shards from one queue, longest
# first); each step is reported with its wall and CPU seconds, its log in .build/test-logs.
test: ## everything CI runs: lint sanity units promtool build-check galaxy-importer docs-site ee sanity-min units-min simulator molecule testbed (TEST_ONLY="step ..." for some; tools/test.py --list)
	MAKE="$(MAKE)" python3 tools/test.py $(if $(TEST_ONLY),--only $(TEST_ONLY))

demo: images mindcluster ## a simulated 910B node joined to the test bed's cluster, site.yml with every layer (run twice: zero changed; DEMO_ARGS="--check --diff" passes options)
	@test -x .build/k8s/bin/kube || echo "[demo] first run: building Kubernetes v1.34 from its Go modules once (about 6-10 min on 2 cores), then the node (about 3 min)"
	@$(MAKE) --no-print-directory k8s
	tools/demo.sh $(if $(DEMO_ARGS),-- $(DEMO_ARGS))

bench: images mindcluster ## re-run against the floor on the demo node; converge and re-run of 1, 4, 8 nodes, bytes, projections: docs/benchmarks.md (~25 min)
	@$(MAKE) --no-print-directory k8s
	python tools/bench.py

demo-clean: ## remove the demo node container
	tools/demo.sh --clean

docs: setup ## regenerate the generated pages (role READMEs, version matrix, support matrix and the roles' platforms), then build the docs site (docs-site)
	python tools/gen_docs.py
	@$(MAKE) --no-print-directory -o setup docs-site

# The docs site and galaxy-importer run from .build/venv-galaxy (requirements-galaxy.txt):
# galaxy-importer's pins (attrs<24, flake8<7) do not fit the main toolchain.
docs-site: setup ## the collection's docs site (antsibull-docs sphinx-init, sphinx-build -W: any warning fails) into .build/docs/build/html, offline
	@tools/bootstrap.sh galaxyvenv
	PATH=$(ROOT)/.build/venv-galaxy/bin:$$PATH python tools/docs_site.py

galaxy-importer: setup ## galaxy-importer on the built tarball, as Galaxy runs it on upload (tools/galaxy-importer.cfg); any warning fails
	@tools/bootstrap.sh galaxyvenv
	tools/galaxy_importer.sh

clean: demo-clean ## remove build output (keeps .venv and images)
	rm -rf .build/collections tests/output
