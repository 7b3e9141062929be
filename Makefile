.PHONY: test test-fast all setup lab
setup:
	bash scripts/setup_env.sh
test:
	./run_tests.sh
test-fast:
	./run_tests.sh --fast
all:
	./run_all.sh
lab: setup
	.venv/bin/jupyter lab notebooks/
