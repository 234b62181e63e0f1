# SPDX-License-Identifier: Apache-2.0
# The pod agent (agent/): protocol, cc-app-exit's logic, the pod-layer readers of cc-agent,
# and the host client against a scripted fake agent.
cc_add_check_test(NAME test-agent-proto LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-agent-proto.c
  LIBS ccagentproto)
cc_add_check_test(NAME test-agent-app-exit LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-app-exit.c
  LIBS ccagentguest)
cc_add_check_test(NAME test-agent-enter-config LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-enter-config.c
  LIBS ccagentguest)
cc_add_check_test(NAME test-agent-enter-run LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-enter-run.c
  LIBS ccagentguest)
cc_add_check_test(NAME test-agent-client LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-agent-client.c
  LIBS ccagentclient)
cc_add_fuzzer(NAME fuzz-agent-proto
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-agent-proto.c
  LIBS ccagentproto
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/agent-proto)
cc_add_fuzzer(NAME fuzz-agent-env
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-agent-env.c
  LIBS ccagentguest
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/agent-env)
