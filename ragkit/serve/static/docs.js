// Renders /openapi.json as a list of routes with their request and reply schemas (offline).
"use strict";
(function () {
  function resolve(schema, spec, depth) {
    if (!schema || depth > 8) return schema;
    if (schema.$ref) {
      const name = schema.$ref.split("/").pop();
      return resolve(spec.components.schemas[name], spec, depth + 1);
    }
    const out = Array.isArray(schema) ? [] : {};
    for (const [k, v] of Object.entries(schema)) {
      out[k] = v && typeof v === "object" ? resolve(v, spec, depth + 1) : v;
    }
    return out;
  }

  function block(title, value) {
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = title;
    const pre = document.createElement("pre");
    pre.textContent = JSON.stringify(value, null, 2);
    details.append(summary, pre);
    return details;
  }

  fetch("/openapi.json").then((r) => r.json()).then((spec) => {
    const main = document.getElementById("routes");
    main.replaceChildren();
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const section = document.createElement("section");
        const h = document.createElement("h2");
        h.textContent = method.toUpperCase() + " " + path;
        const p = document.createElement("p");
        p.textContent = op.summary || "";
        section.append(h, p);
        const body = op.requestBody && op.requestBody.content["application/json"];
        if (body) section.append(block("request body", resolve(body.schema, spec, 0)));
        const ok = op.responses["200"];
        if (ok && ok.content) {
          for (const [type, content] of Object.entries(ok.content)) {
            section.append(block("reply (" + type + ")", resolve(content.schema || {}, spec, 0)));
          }
        }
        main.append(section);
      }
    }
  });
})();
