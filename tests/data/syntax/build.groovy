package ci

import groovy.transform.CompileStatic

/**
 * Builds and publishes one service.
 */
@CompileStatic
class Pipeline {
    String service
    List<String> stages = []

    Pipeline(String service) {
        this.service = service
    }

    void stage(String name) {
        stages << name
        println "stage ${name} for ${service}"
    }

    boolean publish(String registry) {
        if (!registry) {
            return false
        }
        println "push ${service} to ${registry}"
        return true
    }
}

interface Notifier {
    void notify(String message)
}

def runAll(List<Pipeline> pipelines) {
    pipelines.each { pipeline ->
        pipeline.stage('build')
        pipeline.publish('registry.local')
    }
}
