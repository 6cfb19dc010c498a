SERVERS = {
    "circleci": {
        "style": "snake", "phrasing": "terse", "product": "CircleCI", "container": "project", "container_id": "project_slug",
        "entities": [
            ("pipeline", ["list", "get"], []),
            ("context", ["list", "create", "delete"], [("name", "Context name")]),
            ("environment variable", ["list", "create", "delete"], [("name", "Variable"), ("value", "Value")]),
            ("schedule", ["list", "create", "delete"], [("name", "Schedule name"), ("timetable", "When it runs")]),
        ],
        "extras": [
            ("trigger_pipeline", "Start a new pipeline run on a branch or tag.", {"branch": ("string", "Branch"), "parameters": ("object", "Pipeline parameters")}),
            ("get_build_failure_logs", "Logs of the failed steps of the latest pipeline on a branch.", {"branch": ("string", "Branch")}),
            ("find_flaky_tests", "Tests that pass and fail on the same code, by flakiness.", {"project_slug": ("string", "Project")}),
            ("rerun_workflow", "Re-run a workflow, from the start or from its failed jobs.", {"workflow_id": ("string", "Workflow"), "from_failed": ("boolean", "Only failed jobs")}),
            ("cancel_workflow", "Cancel a running workflow.", {"workflow_id": ("string", "Workflow")}),
            ("get_job_artifacts", "Files a job saved as artifacts.", {"job_number": ("integer", "Job")}),
            ("get_test_metadata", "Test results of a job: passed, failed, skipped.", {"job_number": ("integer", "Job")}),
            ("get_workflow_insights", "Success rate, duration and credits of workflows over time.", {"workflow_name": ("string", "Workflow"), "branch": ("string", "Branch")}),
            ("approve_job", "Approve a job on hold so the workflow continues.", {"workflow_id": ("string", "Workflow"), "approval_request_id": ("string", "Approval")}),
            ("validate_config", "Check a .circleci/config.yml for errors.", {"config": ("string", "YAML")}),
        ],
    },
    "figma": {
        "style": "camel", "phrasing": "formal", "product": "Figma", "container": "team", "container_id": "teamId",
        "entities": [
            ("project", ["list"], []),
            ("file", ["list", "get"], []),
            ("comment", ["list", "create", "delete"], [("message", "Comment"), ("fileKey", "File")]),
            ("component", ["list", "get"], []),
            ("style", ["list", "get"], []),
            ("webhook", ["list", "create", "delete"], [("eventType", "FILE_UPDATE, FILE_COMMENT…"), ("endpoint", "URL")]),
        ],
        "extras": [
            ("exportImages", "Render frames or layers of a file as PNG, JPG, SVG or PDF.", {"fileKey": ("string", "File"), "ids": ("array", "Node IDs"), "format": ("string", "png, jpg, svg, pdf")}),
            ("getFileVersions", "Version history of a design file.", {"fileKey": ("string", "File")}),
            ("getNode", "One frame or layer of a file with its properties.", {"fileKey": ("string", "File"), "nodeId": ("string", "Node")}),
            ("getVariables", "Design tokens (variables) of a file: colours, spacing, typography.", {"fileKey": ("string", "File")}),
            ("getDevResources", "Links from design nodes to code (dev resources).", {"fileKey": ("string", "File")}),
        ],
    },
}
